// A complete Arena bot in C++: it dials in to the arena's gRPC gateway, holds one stream, and
// answers every decision request with a uniformly random legal action, for every game.
//
//   arena-cpp-bot --token TOKEN [--address 127.0.0.1:50051] [--matches N] [--tls] [--ca FILE]
//
// Without --token it reads $ARENA_TOKEN (and $ARENA_ADDRESS): what the arena sets when it launches
// a bot. The address may be HOST:PORT or unix:/path (the socket a sandboxed bot is given).
// Over TLS with --tls (the system's root certificates) or --ca FILE (the CA that signed the
// gateway's certificate); by default when $ARENA_TLS_CA or $ARENA_TLS=1 is set. Never on unix:.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "arena/v1/bot.grpc.pb.h"

namespace {

struct Args {
  std::string address = "127.0.0.1:50051";
  std::string token;
  int matches = 0;  // 0: play until the arena closes the stream
  bool tls = false;
  std::string ca;  // a PEM file of CA certificates; empty: the system's roots (when tls)
};

const char* kUsage =
    "usage: arena-cpp-bot --token TOKEN [--address HOST:PORT|unix:PATH] [--matches N] [--tls] [--ca FILE]";

bool Truthy(const char* value) {
  std::string v = value ? value : "";
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

Args ParseArgs(int argc, char** argv) {
  Args args;
  if (const char* address = std::getenv("ARENA_ADDRESS")) args.address = address;
  if (const char* token = std::getenv("ARENA_TOKEN")) args.token = token;
  if (const char* ca = std::getenv("ARENA_TLS_CA")) args.ca = ca;
  args.tls = Truthy(std::getenv("ARENA_TLS"));
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--tls") {
      args.tls = true;
      --i;  // a flag without a value
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "missing value after " << flag << "; " << kUsage << "\n";
      std::exit(2);
    }
    std::string value = argv[i + 1];
    if (flag == "--address") {
      args.address = value;
    } else if (flag == "--token") {
      args.token = value;
    } else if (flag == "--matches") {
      args.matches = std::atoi(value.c_str());
    } else if (flag == "--ca") {
      args.ca = value;
    } else {
      std::cerr << "unknown argument " << flag << "; " << kUsage << "\n";
      std::exit(2);
    }
  }
  if (args.token.empty()) {
    std::cerr << "give --token TOKEN (from `arena bot register NAME`) or set ARENA_TOKEN\n";
    std::exit(2);
  }
  args.tls = args.address.rfind("unix:", 0) != 0 && (args.tls || !args.ca.empty());
  return args;
}

// TLS credentials verifying the gateway against --ca's certificates (or the system's roots).
std::shared_ptr<grpc::ChannelCredentials> Credentials(const Args& args) {
  if (!args.tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  if (!args.ca.empty()) {
    std::ifstream file(args.ca);
    if (!file) {
      std::cerr << "cannot read the CA file " << args.ca << ": check --ca or ARENA_TLS_CA\n";
      std::exit(2);
    }
    std::stringstream pem;
    pem << file.rdbuf();
    options.pem_root_certs = pem.str();
  }
  return grpc::SslCredentials(options);
}

// What a failed connection may owe to TLS, in words (gRPC itself says only UNAVAILABLE).
std::string TlsHint(const Args& args, const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return "";
  const std::string& said = status.error_message();
  if (said.find("CERTIFICATE_VERIFY_FAILED") != std::string::npos || said.find("certificate") != std::string::npos) {
    return "; certificate verify failed: is --ca (or ARENA_TLS_CA) the CA that signed the gateway's certificate?";
  }
  return args.tls ? "; does the gateway speak TLS? (drop --tls/--ca for a plaintext one)"
                  : "; if the gateway speaks TLS, pass --tls or --ca FILE (or set ARENA_TLS_CA)";
}

// The bot's brain: any legal action. A real bot would parse request.observation_json().
int ChooseAction(const arena::v1::DecisionRequest& request, std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, request.legal_actions_size() - 1);
  return request.legal_actions(pick(rng)).id();
}

// One connection: play until the stream ends. Returns the gRPC status of the call.
grpc::Status PlayOnce(arena::v1::BotGateway::Stub& stub, const Args& args, int& matches_done,
                      std::mt19937& rng) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + args.token);
  auto stream = stub.Play(&context);
  arena::v1::BotMessage hello;
  hello.mutable_hello()->set_client("cpp-example/1.0");
  stream->Write(hello);
  arena::v1::ArenaMessage message;
  while (stream->Read(&message)) {
    if (message.has_welcome()) {
      std::cerr << "connected to " << args.address << " as " << message.welcome().bot_name() << "\n";
    } else if (message.has_decision()) {
      arena::v1::BotMessage answer;
      answer.mutable_action()->set_request_id(message.decision().request_id());
      answer.mutable_action()->set_action_id(ChooseAction(message.decision(), rng));
      stream->Write(answer);
    } else if (message.has_match_end()) {
      const auto& end = message.match_end();
      std::cerr << "match " << end.match_id() << " over: seat " << end.seat() << "\n";
      if (args.matches > 0 && ++matches_done >= args.matches) {
        stream->WritesDone();
        context.TryCancel();
        break;
      }
    } else if (message.has_notice()) {
      std::cerr << "arena notice: " << message.notice().message() << "\n";
    }
  }
  return stream->Finish();
}

}  // namespace

int main(int argc, char** argv) {
  Args args = ParseArgs(argc, argv);
  auto channel = grpc::CreateChannel(args.address, Credentials(args));
  auto stub = arena::v1::BotGateway::NewStub(channel);
  std::mt19937 rng(std::random_device{}());
  int matches_done = 0;
  // Redial with exponential backoff (0.5 s doubling to 30 s) whenever the stream ends.
  for (int delay_ms = 500;; delay_ms = std::min(30000, delay_ms * 2)) {
    grpc::Status status = PlayOnce(*stub, args, matches_done, rng);
    if (args.matches > 0 && matches_done >= args.matches) return 0;
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
      std::cerr << "token rejected: " << status.error_message() << "\n";
      return 1;
    }
    std::cerr << "connection to " << args.address << " lost: " << status.error_message() << TlsHint(args, status)
              << "\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  }
}
