"""The review dock, its background task and the result layers it draws."""
