package ojson

// Object is a JSON object whose members keep their order. A nil *Object reads as an empty
// object: its Lookup, Get and Has find nothing.
//
// Members is the object's content, in order; code may read and change it directly (reorder
// it, replace values in place). The methods keep keys unique, as Parse does; a Members slice
// built with a key twice is encoded as it is.
type Object struct {
	Members []Member
}

// Member is one key of an [Object] and its value.
type Member struct {
	Key   string
	Value any
}

// Lookup returns the value of key and whether o has it.
func (o *Object) Lookup(key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	for _, m := range o.Members {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Get returns the value of key; nil when o has no such key, or has it with the value null
// (use Lookup or Has to tell these apart).
func (o *Object) Get(key string) any {
	v, _ := o.Lookup(key)
	return v
}

// Has reports whether o has key.
func (o *Object) Has(key string) bool {
	_, ok := o.Lookup(key)
	return ok
}

// Set gives key the value v: in its place when o has key, else as a new last member.
func (o *Object) Set(key string, v any) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members[i].Value = v
			return
		}
	}
	o.Members = append(o.Members, Member{Key: key, Value: v})
}

// Delete removes key from o, keeping the order of the other members; it does nothing when o
// has no such key.
func (o *Object) Delete(key string) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members = append(o.Members[:i], o.Members[i+1:]...)
			return
		}
	}
}

// Copy returns a deep copy of the value v: its objects and arrays are new, at every depth, so
// that changing the copy leaves v as it was. Strings, numbers, booleans and null are returned
// as they are.
func Copy(v any) any {
	switch v := v.(type) {
	case *Object:
		c := &Object{Members: make([]Member, len(v.Members))}
		for i, m := range v.Members {
			c.Members[i] = Member{Key: m.Key, Value: Copy(m.Value)}
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = Copy(e)
		}
		return c
	}
	return v
}
