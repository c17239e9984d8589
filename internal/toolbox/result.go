package toolbox

import (
	"fmt"
	"unicode/utf8"
)

// Cut cuts a result over limit bytes, on a character boundary, and says so to the model.
func Cut(result string, limit int) string {
	if len(result) <= limit {
		return result
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(result[cut]) {
		cut--
	}
	return result[:cut] + fmt.Sprintf("\n[result cut: it was %d bytes and the limit is %d; ask for less, e.g. narrower arguments]", len(result), limit)
}
