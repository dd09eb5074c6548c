"""The design: the config files as read (:mod:`.config_files`: overlays, YAML line numbers) and the
experiments they declare, expanded into cells (:mod:`.experiments`)."""
