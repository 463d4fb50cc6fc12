package eval

import (
	"context"
	"strings"
	"testing"
)

// TestWithData: a model given new data is, for an instance of a family,
// the family called with that data (same printed model, same sizes), and
// for a plain model the model whose scope holds the new values; a name
// the model computes itself is refused.
func TestWithData(t *testing.T) {
	withoutInstanceCheck(t)
	in := New(Options{Registry: testRegistry()})
	src := "model f(k, y) {\n  w[k] ~ twice(1)\n}\nlet a = f(k: 2, y: [1, 2])\nlet b = f(k: 3, y: [1, 2])\n" +
		"let k = 2\nmodel p {\n  v[k] ~ twice(1)\n  z = k\n}\n"
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	th := in.NewThread(context.Background())
	get := func(name string) *Model {
		v, _ := in.Lookup(name)
		return v.(*Model)
	}
	got, err := th.WithData(get("a"), map[string]Value{"k": Num(3)})
	if err != nil {
		t.Fatal(err)
	}
	if want := get("b").String(); got.String() != want || got.Family != get("b").Family {
		t.Errorf("family instance with k = 3:\n got  %s\n want %s", got, want)
	}
	got, err = th.WithData(get("p"), map[string]Value{"k": Num(4)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Params[0].Size != 4 || get("p").Params[0].Size != 2 {
		t.Errorf("plain model with k = 4: sizes %d (want 4), original %d (want 2)", got.Params[0].Size, get("p").Params[0].Size)
	}
	if _, err := th.WithData(get("p"), map[string]Value{"z": Num(1)}); err == nil || !strings.Contains(err.Error(), "computes z itself") {
		t.Errorf("replacing an assigned name: got %v", err)
	}
}
