package datadriven_test

import (
	"fmt"

	"github.com/tether-net/tether/internal/datadriven"
)

// A script of two commands; a test would hand each to its handler with Run
// and compare what it prints with the lines under "----".
func ExampleParse() {
	const script = `# Add two numbers.
add a=2 b=3
----
5

# Sum the lines.
sum
1
2
----
3
`
	cmds, err := datadriven.Parse("example.txt", script)
	if err != nil {
		panic(err)
	}
	for _, c := range cmds {
		fmt.Println(c.Pos, c.Name, c.Args, c.Input)
	}
	// Output:
	// example.txt:2 add [{a 2} {b 3}] []
	// example.txt:7 sum [] [1 2]
}
