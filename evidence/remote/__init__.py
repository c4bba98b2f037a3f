"""Between experiments and train: the remote, where runs outlive this machine (``[remote] url``).

location  the fsspec file system a URL names (path, SFTP, S3, ...), credentials from the usual places
store     the content-addressed, append-only layout: objects, run manifests, checkpoint pointers
push      sending sealed runs, each object once, the manifest last
mirror    a run's checkpoints copied by a background thread while it trains; resume from them
lease     one machine trains a run at a time, agreed through the remote
gate      the teardown gate: is everything this machine made on the remote?
session   what one training run does with the remote: lease, resume, mirror, push when sealed
retention gc --remote: runs no experiment declares (never one a claim uses), stale checkpoints

Pulling a run is importing it (digests, key, identity, verify by load): evidence.scale.pull.
"""
