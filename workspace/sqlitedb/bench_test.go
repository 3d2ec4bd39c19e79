package sqlitedb

import (
	"context"
	"testing"
)

// BenchmarkReadQuery pages a 30-row table with order and where through a
// fresh read-only connection, as one read tool call does.
func BenchmarkReadQuery(b *testing.B) {
	abs := makeDB(b)
	sel, err := ParseSelector(":users?limit=20&offset=5&order=name:desc&where=active=1")
	if err != nil {
		b.Fatal(err)
	}
	f := fileAt(b, abs)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := OpenReadOnly(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Read(context.Background(), db, "app.db", sel); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}
