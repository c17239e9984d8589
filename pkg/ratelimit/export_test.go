package ratelimit

// BucketsHeld is how many buckets l holds, for tests of its memory bound.
func BucketsHeld(l *Local) int { return l.size() }
