"""Code generated from proto/arena/v1 by scripts/gen_proto.py: do not edit by hand."""
