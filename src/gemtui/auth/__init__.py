"""Sign in with Google: PKCE authorization-code flow, callback checks, token exchange."""
