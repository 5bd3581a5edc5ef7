package wiring

import "os"

// stderr is where deployed functions log: Cloud Run collects it.
var stderr = os.Stderr
