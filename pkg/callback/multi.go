package callback

import "context"

// Multi returns a [Handler] that passes each event to every non-nil handler of hs, in the
// order given, one after the other on the calling goroutine.
//
// Nil handlers are dropped, and handlers made by Multi are flattened into the result, so
// nesting Multi (as delegated runs do) does not grow a chain of calls. When no handler is left,
// Multi returns nil, so that a caller can skip building events nobody receives; when one is
// left, Multi returns it unchanged. Multi copies hs: changing the slice afterwards has no
// effect.
func Multi(hs ...Handler) Handler {
	var out multi
	for _, h := range hs {
		switch h := h.(type) {
		case nil:
		case multi:
			out = append(out, h...)
		default:
			out = append(out, h)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

// multi is never empty and holds no nil handler.
type multi []Handler

func (m multi) Handle(ctx context.Context, e Event) {
	for _, h := range m {
		h.Handle(ctx, e)
	}
}
