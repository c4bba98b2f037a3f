"""Layer 2: what to run, from experiments/*.toml.

spec      expansion of an experiment into run specs and their keys
presets   training presets chosen by memory fit (presets.toml)
autopreset  preset = "auto" chosen in a bounded child process
select    which sealed runs a figure, table or comparison reads
trainers  loading a project's trainer module and building its model for a spec
"""
