
#compdef errnote

_errnote_completion() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" _ERRNOTE_COMPLETE=complete_zsh errnote)
}

compdef _errnote_completion errnote

