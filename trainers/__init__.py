"""The project's trainers: one module per model family, each with ``build(config, data)``."""
