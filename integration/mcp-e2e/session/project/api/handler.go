// Package api is the HTTP face of the store.
package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"example.com/inventory/store"
)

// Handler routes /items requests to a store.
type Handler struct {
	s *store.Store
}

// NewHandler returns a handler over s.
func NewHandler(s *store.Store) *Handler {
	return &Handler{s: s}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sku := strings.TrimPrefix(r.URL.Path, "/items/")
	switch {
	case r.URL.Path == "/items" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, h.s.List())
	case sku != r.URL.Path && r.Method == http.MethodGet:
		it, err := h.s.Get(sku)
		if errors.Is(err, store.ErrNotFound) {
			http.Error(w, "no such item", http.StatusNotFound)
			return
		}
		writeJSON(w, http.StatusOK, it)
	case sku != r.URL.Path && r.Method == http.MethodPost:
		n, err := strconv.Atoi(r.URL.Query().Get("take"))
		if err != nil {
			http.Error(w, "take must be a number", http.StatusBadRequest)
			return
		}
		if err := h.s.Take(sku, n); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
