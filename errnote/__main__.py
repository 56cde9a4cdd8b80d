"""`python -m errnote`: the same as the `errnote` command."""

from errnote.cli import main

if __name__ == "__main__":
    main()
