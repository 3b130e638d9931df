"""Our games as reinforcement-learning and game-theory environments (docs/rl.md).

- `arena.envs.pettingzoo.env(game_id, num_players, **options)`: a PettingZoo AEC environment
  (extra `[rl]`);
- `arena.envs.openspiel.register()`: every game as an OpenSpiel game `arena_<game_id>` (extra
  `[openspiel]`).
- `arena.envs.vector.BatchEnv(game_id, num_players, num_games=N)`: N games stepped together, a
  Gymnasium vector environment, and `arena.envs.parallel.parallel_env(game_id, num_players)`: one
  game as a PettingZoo ParallelEnv; both on `arena.envs.batch.GameBatch` (extra `[rl]`).

Both share `arena.envs.encoding` (the engine's observation as a fixed-length vector, the legal
actions as a mask) and `arena.envs.payoffs` (a finished game's ranks as zero-sum payoffs). Importing
this package imports neither library; each adapter module needs its own extra.
"""
