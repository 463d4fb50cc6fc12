package cpufeat

import "testing"

func TestUseRestores(t *testing.T) {
	if Vector != Detected {
		t.Fatalf("Vector %v, Detected %v", Vector, Detected)
	}
	ls := Levels()
	if ls[0] != None || ls[len(ls)-1] != Detected {
		t.Fatalf("Levels() = %v", ls)
	}
	for _, l := range ls {
		restore := Use(l)
		if Vector != l {
			t.Fatalf("Use(%v): Vector %v", l, Vector)
		}
		restore()
		if Vector != Detected {
			t.Fatalf("restore after Use(%v): Vector %v", l, Vector)
		}
	}
	t.Logf("detected %v", Detected)
}
