"""A node's launcher: submitted bots launched on the node that plays their match (docs/tournaments.md)."""
