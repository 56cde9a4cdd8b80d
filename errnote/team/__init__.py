"""A notebook a team keeps in git: the history of an entry (`log`), where a lesson came from
(`trace`) and what a branch changed (`changes`). Plain `git` subprocesses: see bench/README.md."""
