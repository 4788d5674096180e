// Package parquet reads Parquet files for package sources: arrow/go's parquet/file reads the
// footer and schema, this package's page readers read the column chunks (PLAIN, dictionary,
// BYTE_STREAM_SPLIT and DELTA encodings, every codec, data pages v1 and v2) into Arrow
// arrays, and package arrow converts the resulting records (as pqarrow sits on arrow). Flat
// columns whose data pages are all dictionary-encoded (class labels, categories) become
// Arrow dictionary arrays without a lookup per row (parquetdict.go): the pipeline then
// counts per dictionary index and converts each dictionary value once.
//
// Every size the file claims is checked against what its bytes can hold before anything is
// allocated (fileread.LimitAllocator counts live bytes here); errors wrap
// fileread.ErrCorrupt and name the row group, the field and the page offset.
//
// Imports: sources/arrow, sources/internal/fileread and arrow/go (with its codecs);
// never package sources.
//
// Memory: records alias the Arrow arrays built from the pages, held by the batch until its
// Release. Columns holding structs (struct, map, list<struct>) are not decoded: their
// values are Other. A reader is used by one goroutine.
package parquet
