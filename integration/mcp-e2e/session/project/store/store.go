// Package store keeps the inventory in memory.
package store

import (
	"errors"
	"sort"
	"sync"
)

// ErrNotFound is returned for an unknown SKU.
var ErrNotFound = errors.New("store: no such item")

// Item is one stock-keeping unit.
type Item struct {
	SKU   string `json:"sku"`
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Store is a concurrency-safe item store.
type Store struct {
	mu    sync.Mutex
	items map[string]Item
}

// New returns an empty store.
func New() *Store {
	return &Store{items: map[string]Item{}}
}

// Put adds or replaces an item.
func (s *Store) Put(it Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items[it.SKU] = it
}

// Get returns the item with the given SKU.
func (s *Store) Get(sku string) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[sku]
	if !ok {
		return Item{}, ErrNotFound
	}
	return it, nil
}

// Take removes n units of an item.
func (s *Store) Take(sku string, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[sku]
	if !ok {
		return ErrNotFound
	}
	it.Count -= n
	s.items[sku] = it
	return nil
}

// List returns every item, sorted by SKU.
func (s *Store) List() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Item, 0, len(s.items))
	for _, it := range s.items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })
	return out
}
