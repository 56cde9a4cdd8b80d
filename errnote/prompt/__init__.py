"""The prompt floor: what goes into an agent's prompt, and what a session was already shown."""
