// Package partial shows a JSON answer while a model is still writing it: [Close] turns the
// start of a JSON document into the largest valid JSON document that the start already
// determines, and [Relax] turns a JSON Schema into one that such a document can meet.
//
// A typed output streams as text: `{"title":"Rain","tags":["wet","co`. Close gives
// {"title":"Rain","tags":["wet"]} — open containers closed, the cut item left out — or, asked
// to keep strings, {"title":"Rain","tags":["wet","co"]}. Every value Close shows is a value of
// the finished document, or (a kept string) the start of one: a number, a literal or a key is
// shown only once nothing can change it. So a display that decodes each new prefix never has
// to take back what it showed, only add to it.
//
// A document that holds only what has been written may lack what its schema requires: a
// required member not yet written, an array with fewer items than minItems. Relax removes
// those constraints, so that a partial document can be checked against the schema it is
// growing towards, and decoded into the same type.
//
// Close is meant to run on every chunk of a stream: it reads the prefix once, keeps no state
// between calls, and allocates only the document it returns. Reading only the new bytes of
// each chunk would save the reread, but a prefix of a few kilobytes closes in microseconds
// (BenchmarkClose), well under the time a model takes to write it.
package partial
