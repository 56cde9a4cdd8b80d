#compdef errnote
# zsh completion for errnote (completions/generate.py). Copy it to a folder on $fpath as
# _errnote before compinit runs, or source it after compinit.

_errnote() {
  eval "$(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" _ERRNOTE_COMPLETE=complete_zsh errnote)"
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _errnote "$@"
else
  compdef _errnote errnote
fi
