package yamlconf

import (
	"strconv"
	"strings"
)

// Error is one thing wrong in a file. Its text is "file:line: path: msg", without ":line"
// when it is about the whole file and without "path: " when it is about the top of it.
type Error struct {
	File string
	Line int    // from 1; 0 when the error is about the whole file
	Path string // the key path, e.g. models.fast.temperature; "" for the top
	Msg  string // what is wrong, and what to write instead
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}
