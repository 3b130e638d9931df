"""The match runner's link to the gateway: the MatchHost calls (open a seat, ask a decision, close
the seat) from the runner to the gateway, over one of three transports.

  client.py       GatewayClient: the calls, whichever transport carries them; GatewayError
  host_leg.py     the default transport: frames on a TCP port of the gateway's own — the wire and
                  the runner's end (the gateway's listening end is arena/gateway/host_leg.py)
  host_stream.py  the runner's end of the gRPC stream MatchHost.Host, and the seats of a client on
                  a connection (shared by both connection transports)
  hostkey.py      the arena host key both ends hold, and the gRPC metadata that carries it

The message limits below are the link's: the gateway's gRPC server and the host leg's frames
accept the same sizes.
"""

MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # the largest BotMessage the arena reads (gRPC's usual default)
# The transport's own cut-off, above the arena's: a message between the two reaches the arena, which
# then records its size; one over it is refused by gRPC before the arena sees it.
TRANSPORT_MESSAGE_BYTES = 2 * MAX_MESSAGE_BYTES
