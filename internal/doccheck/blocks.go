package doccheck

import (
	"strings"
)

// NotCompiled is the line that, written just before a ```go block, keeps the block out of the
// check.
const NotCompiled = "<!-- not compiled -->"

// A Block is a fenced code block of a Markdown document.
type Block struct {
	File string // the document, as named to Blocks
	Line int    // the line of the opening fence, from 1
	Lang string // the first word of the fence's info string: "go", "sh", ""...
	Code string // the lines between the fences, without the fence's indentation
	Skip bool   // the block follows a NotCompiled line
}

// Blocks returns the fenced code blocks of the Markdown document md, named file, in order.
// Fences are ``` or ~~~, three or more, indented by any number of spaces (a block in a list
// item is indented); the block's lines lose as many leading spaces as its opening fence has.
// A block left open runs to the end of the document, as in CommonMark.
func Blocks(file string, md string) []Block {
	var blocks []Block
	lines := strings.Split(md, "\n")
	prev := "" // the last non-blank line before the current one, outside blocks
	for i := 0; i < len(lines); i++ {
		fence, indent, info, ok := openingFence(lines[i])
		if !ok {
			if t := strings.TrimSpace(lines[i]); t != "" {
				prev = t
			}
			continue
		}
		b := Block{File: file, Line: i + 1, Lang: firstWord(info), Skip: prev == NotCompiled}
		var code []string
		for i++; i < len(lines); i++ {
			if closingFence(lines[i], fence) {
				break
			}
			code = append(code, dedent(lines[i], indent))
		}
		b.Code = strings.Join(code, "\n")
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks
}

// openingFence reports whether line opens a fenced block, and returns its fence (``` or ~~~,
// as long as written), its indentation and its info string.
func openingFence(line string) (fence string, indent int, info string, ok bool) {
	rest := strings.TrimLeft(line, " ")
	indent = len(line) - len(rest)
	if !strings.HasPrefix(rest, "```") && !strings.HasPrefix(rest, "~~~") {
		return "", 0, "", false
	}
	n := len(rest) - len(strings.TrimLeft(rest, rest[:1]))
	fence, info = rest[:n], strings.TrimSpace(rest[n:])
	if fence[0] == '`' && strings.Contains(info, "`") {
		return "", 0, "", false // an inline code span, not a fence
	}
	return fence, indent, info, true
}

// closingFence reports whether line closes a block opened by fence: the same character, at
// least as many times, and nothing else but spaces.
func closingFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == ""
}

func dedent(line string, indent int) string {
	n := 0
	for n < indent && n < len(line) && line[n] == ' ' {
		n++
	}
	return line[n:]
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
