"""Planning before any job: the config's validation (:mod:`.validate`), the expected CPU time
(:mod:`.cost`) and memory (:mod:`.memory_bounds`), the workflow's jobs (:mod:`.workflow`) and the
claim plan, which K each paper claim needs (:mod:`.claims`)."""
