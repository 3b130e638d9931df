"""The web dashboard: leaderboards, rating charts, head-to-heads, tournaments, matches with a
move-by-move replay viewer, bot pages, and the JSON API behind them (docs/dashboard.md).

It reads the database through arena.store and never runs a match. `arena dashboard` serves it;
`dashboards.app.create_app(store)` is the ASGI application.
"""
