package engine

import (
	"reflect"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// Every kind of setup item spec.Setup lists is a spec.Item with a maker here: a kind added
// to spec without its maker fails this test, not a run.
func TestEverySetupKindHasAMaker(t *testing.T) {
	var s spec.Setup
	v := reflect.ValueOf(&s).Elem()
	for i := range v.NumField() {
		list := v.Field(i)
		list.Set(reflect.Append(list, reflect.New(list.Type().Elem()).Elem()))
	}
	items := s.Items()
	if len(items) != v.NumField() {
		t.Fatalf("%d items from %d lists", len(items), v.NumField())
	}
	for _, it := range items {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("setup %s: %v", it.Kind(), r)
				}
			}()
			if makerOf(it, &spec.Spec{}) == nil {
				t.Errorf("setup %s: no maker", it.Kind())
			}
		}()
	}
}
