package lines

import (
	"reflect"
	"testing"
)

func TestMerge(t *testing.T) {
	for _, tc := range []struct{ in, want []Range }{
		{nil, []Range{}},
		{[]Range{{5, 7}, {1, 2}, {3, 4}}, []Range{{1, 7}}},
		{[]Range{{1, 3}, {2, 9}, {20, 20}}, []Range{{1, 9}, {20, 20}}},
		{[]Range{{0, 3}, {5, 4}, {8, 8}}, []Range{{8, 8}}}, // empty and reversed dropped
		{[]Range{{4, 4}, {6, 6}}, []Range{{4, 4}, {6, 6}}},
	} {
		if got := Merge(append([]Range(nil), tc.in...)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Merge(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
