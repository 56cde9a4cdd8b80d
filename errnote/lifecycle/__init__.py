"""Keeping lessons true: checking a notebook (`lint`), its figures (`stats`), what needs a person
(`review`), recent mistakes clustered into lessons (`digest`) and repeated entries (`duplicates`).
The arithmetic of confidence and decay is the model's (`errnote.model.confidence`, `staleness`)."""
