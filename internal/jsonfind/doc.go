// Package jsonfind finds the JSON objects and arrays written inside a text — a model's answer
// with prose around its JSON — in time linear in the text's length (Values), and the JSON
// values an answer most likely means, in order (Candidates).
//
// The obvious search, decoding from every '{' and '[' in turn, is quadratic: an answer of
// unclosed openers ("[[[[…", or JSON cut short) makes each decode read to the end. A decode
// from an opener that lies inside a value already read from an earlier opener reads the same
// bytes as that earlier decode did, and ends the same way: so one pass over a value tells the
// outcome of every opener it holds, and only openers inside its strings need a pass of their
// own.
package jsonfind
