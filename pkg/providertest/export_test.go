package providertest

// ThinkingSigned reports whether signature is s's signature of the thinking text; s is an
// Anthropic fake. For the tests of the signatures, which the API does not show.
func ThinkingSigned(s *Server, thinking, signature string) bool {
	return s.api.(*anthropicAPI).signed(thinking, signature)
}
