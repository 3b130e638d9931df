"""The bot protocol's code, generated from proto/arena/v1/bot.proto by scripts/gen_proto.py: do not edit by hand.

The wire names are those of the proto package `arena.v1` (/arena.v1.BotGateway/Play).
"""
