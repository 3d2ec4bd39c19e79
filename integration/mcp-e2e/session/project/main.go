// Command inventory serves a small stock-keeping API.
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"example.com/inventory/api"
	"example.com/inventory/store"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()

	s := store.New()
	s.Put(store.Item{SKU: "A-100", Name: "widget", Count: 12})
	s.Put(store.Item{SKU: "B-200", Name: "gadget", Count: 3})

	srv := &http.Server{
		Addr:         *addr,
		Handler:      api.NewHandler(s),
		ReadTimeout:  5 * time.Second,
		WriteTimeout: 10 * time.Second,
	}
	log.Printf("inventory listening on %s", *addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Fatal(err)
	}
}
