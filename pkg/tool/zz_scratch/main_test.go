package zz

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/schema"
)

func p[T any]() {
	s, err := schema.For[T]()
	if err != nil {
		fmt.Printf("%T: ERR %v\n", *new(T), err)
		return
	}
	fmt.Printf("%T: %s\n", new(T), s.JSON())
}

func TestX(t *testing.T) {
	p[int]()
	p[any]()
	p[[]string]()
	p[time.Time]()
	p[json.RawMessage]()
	p[func()]()
	p[chan int]()
	p[*int]()
	p[[]byte]()
	p[bool]()
}
