"""The command line: ``privrl`` (:mod:`.main`) and its argument parsing (:mod:`.args`)."""
