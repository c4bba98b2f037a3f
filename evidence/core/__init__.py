"""Layer 0, the ground every other package stands on; imports nothing else of the engine.

errors      the error types and exit codes (bad input 3, failure 1, interrupted 75)
hashing     BLAKE3 digests of files, bytes and canonical JSON; atomic writes
project     a project's folders: every path of the project is derived here
readers     the one reader of users' files: text, JSON, TOML (encoding and parse errors: one line)
schema      JSON Schema validation
memo        the persistent memo of derived values, keyed by the stat of their inputs
lookonce    one stat per file per status check: what a check saw, for its later questions
treestat    what was found about each file of one large folder, kept by its stat (one stat a file)
codedeps    which engine files a step's code depends on, derived from its imports
progress    progress lines for long steps
provenance  the environment and git state (dirty: uncommitted inputs) recorded beside outputs
outputs     every generated output's digest when written: an output edited by hand is named
settings    evidence.toml: per-project settings (dispatch, devices)
metrics     the range of values each metric can take (checked at seal time and in verify)
processes   whether a recorded process still runs
upindex     the project-level up-to-date index: "nothing changed" in one pass of stats
"""
