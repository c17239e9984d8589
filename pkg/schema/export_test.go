package schema

// ValidateFull validates data with v6 alone, as Validate did before it had a fast path, for
// BenchmarkValidateFull.
func ValidateFull(s *Schema, data []byte) error { return s.validateFull(data) }
