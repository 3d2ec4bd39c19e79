package store

import "testing"

func TestPutGet(t *testing.T) {
	s := New()
	s.Put(Item{SKU: "X", Name: "x", Count: 1})
	it, err := s.Get("X")
	if err != nil || it.Count != 1 {
		t.Fatalf("Get = %+v, %v", it, err)
	}
}

func TestTake(t *testing.T) {
	s := New()
	s.Put(Item{SKU: "X", Name: "x", Count: 5})
	if err := s.Take("X", 2); err != nil {
		t.Fatal(err)
	}
	it, _ := s.Get("X")
	if it.Count != 3 {
		t.Fatalf("Count = %d, want 3", it.Count)
	}
}

func TestList(t *testing.T) {
	s := New()
	s.Put(Item{SKU: "B"})
	s.Put(Item{SKU: "A"})
	if got := s.List(); got[0].SKU != "A" || got[1].SKU != "B" {
		t.Fatalf("List = %+v", got)
	}
}
