module github.com/zeebo/xxh3

go 1.17

require (
	github.com/zeebo/assert v1.3.0
	golang.org/x/sys v0.49.0
)

replace github.com/zeebo/xxh3/avo => ./avo
