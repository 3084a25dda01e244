module github.com/rxhystrix/rxhystrix

go 1.25.0

require (
	github.com/cenkalti/backoff/v4 v4.0.0
	github.com/fsnotify/fsnotify v1.10.1
	github.com/stretchr/testify v1.11.1
	go.uber.org/goleak v1.3.0
)

require (
	github.com/emirpasic/gods v1.12.0 // indirect
	github.com/stretchr/objx v0.5.2 // indirect
	github.com/teivah/onecontext v0.0.0-20200513185103-40f981bfd775 // indirect
	golang.org/x/sys v0.26.0 // indirect
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/reactivex/rxgo/v2 v2.5.0
	github.com/rogpeppe/go-internal v1.14.1 // indirect
	gopkg.in/check.v1 v1.0.0-20201130134442-10cb98267c6c // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
