package edit_test

import (
	"fmt"

	"github.com/hashls/hashls/edit"
)

func ExampleApplySection() {
	file := []byte("const X = \"a\";\r\nconst Y = X;\r\n")
	input := "¶a.ts#" + edit.Tag(file) + "\nreplace 1..1:\n+const X = \"b\";\ninsert tail:\n+export { X, Y };"
	secs, err := edit.SplitInput(input)
	if err != nil {
		panic(err)
	}
	res, err := edit.ApplySection(secs[0], edit.File{Path: "a.ts", Key: "/w/a.ts", Bytes: file}, edit.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", res.New)
	fmt.Println(res.Text)
	// Output:
	// "const X = \"b\";\r\nconst Y = X;\r\nexport { X, Y };\r\n"
	// ¶a.ts#0B5B
	// 1:const X = "b";
	// 2:const Y = X;
	// 3:export { X, Y };
}
