// Command buildpackmain is what the Go functions buildpack builds for every
// function: a main that imports the root package for the entry points its
// init registers and starts the Functions Framework, which serves the one
// FUNCTION_TARGET names. The only difference is the address: loopback
// (StartHostPort), where the buildpack's funcframework.Start listens on
// every interface.
//
// Built here, its root package registers every function; scripts/bench.sh
// builds it inside each function's staged source instead (scripts/deploy.sh
// --stage), where the root package is that function's entry package, as
// deployed.
package main

import (
	"log"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
	_ "github.com/ownersite/introductions"
)

func main() {
	port := "8080"
	if p := os.Getenv("PORT"); p != "" {
		port = p
	}
	if err := funcframework.StartHostPort("127.0.0.1", port); err != nil {
		log.Fatalf("funcframework.Start: %v", err)
	}
}
