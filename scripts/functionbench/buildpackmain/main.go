// Command buildpackmain is what the Go functions buildpack builds for every
// function: it imports the root package, whose init registers the entry
// points, and serves the one FUNCTION_TARGET names, on loopback where the
// buildpack's listens on every interface. scripts/bench.sh builds it inside
// each function's staged source, whose root package is its entry package.
package main

import (
	"cmp"
	"log"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
	_ "github.com/ownersite/introductions"
)

func main() {
	if err := funcframework.StartHostPort("127.0.0.1", cmp.Or(os.Getenv("PORT"), "8080")); err != nil {
		log.Fatalf("funcframework.Start: %v", err)
	}
}
