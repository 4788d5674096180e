package parquet

import (
	"errors"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/bitutil"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"
)

// A requested Parquet field that holds a MAP of primitives (pyarrow's map type), a list of
// two-field structs of primitives (pyarrow's list<struct<key, value>>) or a struct of primitives (how pandas, polars and HF datasets store a column of Python dicts: one field
// per key, null where a record lacks it) is read from several leaf columns, each decoded as
// a pqField of its own (a part), and the parts' arrays are put together into the field's
// array: list<struct<key, value>> for a MAP, a struct for a struct. fillColumn turns both
// into core.Map values (fillMaps) when their keys and values have the types a map of numbers
// needs, and into Other otherwise, as before.

// errMapParts reports the parts of a MAP or struct field that do not line up.
var errMapParts = errors.New("the columns of a map or struct field disagree on its rows")

// pqGroup is a field read from several parts.
type pqGroup struct {
	isMap    bool
	parts    []*pqField // MAP: key, value; struct: one per field
	names    []string   // struct: the field names
	nullable bool       // struct: the group can be null
	def      int16      // struct: the definition level of a present group
}

// resolveGroup resolves a requested top-level MAP, list of two-field structs or struct field
// of primitives into its parts; ok is false (nothing resolved) for any other node, left to pqField.resolve.
func resolveGroup(sc *schema.Schema, n schema.Node) (parts []*pqField, ok bool, err error) {
	g, isGroup := n.(*schema.GroupNode)
	if !isGroup || g.RepetitionType() == parquet.Repetitions.Repeated || g.NumFields() == 0 {
		return nil, false, nil
	}
	// Of a repeated top-level name, the last column that holds no group wins (resolveFields):
	// groups then stay Other, as before they were decoded.
	root := sc.Root()
	for i := range root.NumFields() {
		if f := root.Field(i); f != n && f.Name() == n.Name() {
			return nil, false, nil
		}
	}
	lv := file.LevelInfo{NullSlotUsage: 1}
	lv.Increment(g)
	grp := &pqGroup{nullable: g.RepetitionType() == parquet.Repetitions.Optional, def: lv.DefLevel}
	_, isMap := g.LogicalType().(*schema.MapLogicalType)
	isMap = isMap || g.ConvertedType() == schema.ConvertedTypes.Map || g.ConvertedType() == schema.ConvertedTypes.MapKeyValue
	var leaves []*schema.PrimitiveNode
	var elem *schema.GroupNode // the struct of a list of structs, inside its list level
	switch {
	case isMap:
		kv, ok := g.Field(0).(*schema.GroupNode)
		if g.NumFields() != 1 || !ok || kv.RepetitionType() != parquet.Repetitions.Repeated || kv.NumFields() != 2 {
			return nil, false, nil
		}
		for i := range 2 {
			p, ok := kv.Field(i).(*schema.PrimitiveNode)
			if !ok || p.RepetitionType() == parquet.Repetitions.Repeated {
				return nil, false, nil
			}
			leaves = append(leaves, p)
		}
		grp.isMap = true
	case g.LogicalType().Equals(schema.NewListLogicalType()):
		// A list of two-field structs (pyarrow's list<struct<key, value>>): read as a MAP.
		rep, ok := g.Field(0).(*schema.GroupNode)
		if g.NumFields() != 1 || !ok || rep.RepetitionType() != parquet.Repetitions.Repeated {
			return nil, false, nil
		}
		elem = rep // two-level list: the repeated group is the struct
		if rep.NumFields() == 1 && rep.Name() != "array" && rep.Name() != g.Name()+"_tuple" {
			e, ok := rep.Field(0).(*schema.GroupNode) // three-level list: its element
			if !ok || e.RepetitionType() == parquet.Repetitions.Repeated || !e.LogicalType().IsNone() {
				return nil, false, nil
			}
			elem = e
		}
		if elem.NumFields() != 2 {
			return nil, false, nil
		}
		for i := range 2 {
			p, ok := elem.Field(i).(*schema.PrimitiveNode)
			if !ok || p.RepetitionType() == parquet.Repetitions.Repeated {
				return nil, false, nil
			}
			leaves = append(leaves, p)
		}
		grp.isMap = true
	case g.LogicalType() == nil || g.LogicalType().IsNone():
		for i := range g.NumFields() {
			p, ok := g.Field(i).(*schema.PrimitiveNode)
			if !ok || p.RepetitionType() == parquet.Repetitions.Repeated {
				return nil, false, nil
			}
			leaves = append(leaves, p)
			grp.names = append(grp.names, p.Name())
		}
	default:
		return nil, false, nil
	}
	var lists []pqList
	if grp.isMap {
		var head pqField
		head.addList(&lv, grp.nullable)
		lists = head.lists
		if elem != nil && elem.RepetitionType() != parquet.Repetitions.Repeated {
			lv.Increment(elem)
		}
	}
	for _, p := range leaves {
		f := &pqField{name: g.Name() + "." + p.Name(), lists: slices.Clone(lists), group: grp}
		l := lv
		l.Increment(p)
		if err := f.setLeaf(sc, p, l); err != nil {
			return nil, true, err
		}
		grp.parts = append(grp.parts, f)
	}
	grp.parts[0].name = g.Name()
	return grp.parts, true, nil
}

// groupedSchema is the schema of the records of fields: afs, with the parts of each group
// replaced by the group's field.
func groupedSchema(fields []*pqField, afs []arrow.Field) *arrow.Schema {
	out := make([]arrow.Field, 0, len(afs))
	for i, f := range fields {
		switch {
		case f.group == nil:
			out = append(out, afs[i])
		case f == f.group.parts[0]:
			out = append(out, arrow.Field{Name: f.name, Type: f.group.dataType(), Nullable: true})
		}
	}
	return arrow.NewSchema(out, nil)
}

func (g *pqGroup) dataType() arrow.DataType {
	if g.isMap {
		return arrow.ListOf(g.entryType())
	}
	fs := make([]arrow.Field, len(g.parts))
	for i, p := range g.parts {
		fs[i] = arrow.Field{Name: g.names[i], Type: p.leaf(), Nullable: true}
	}
	return arrow.StructOf(fs...)
}

func (g *pqGroup) entryType() arrow.DataType {
	return arrow.StructOf(
		arrow.Field{Name: "key", Type: g.parts[0].leaf(), Nullable: true},
		arrow.Field{Name: "value", Type: g.parts[1].leaf(), Nullable: true})
}

// groupColumns replaces, in cols (one array per field, n rows, just read), the parts of each
// group by the group's array, releasing the parts' arrays (the group's array holds their
// data).
func groupColumns(fields []*pqField, cols []arrow.Array, n int64) ([]arrow.Array, error) {
	grouped := false
	for _, f := range fields {
		grouped = grouped || f.group != nil
	}
	if !grouped {
		return cols, nil
	}
	out := make([]arrow.Array, 0, len(cols))
	for i, f := range fields {
		switch {
		case f.group == nil:
			out = append(out, cols[i])
			continue
		case f != f.group.parts[0]:
			continue
		}
		parts := cols[i : i+len(f.group.parts)]
		a, err := f.group.build(parts, n)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			for _, c := range out {
				c.Release()
			}
			for _, c := range cols[i+len(f.group.parts):] {
				c.Release()
			}
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// build puts the parts' arrays together.
func (g *pqGroup) build(parts []arrow.Array, n int64) (arrow.Array, error) {
	if g.isMap {
		keys, vals := parts[0].(*array.List), parts[1].(*array.List)
		if !slices.Equal(keys.Offsets(), vals.Offsets()) || keys.NullN() != vals.NullN() {
			return nil, errMapParts
		}
		kd, vd := keys.ListValues().Data(), vals.ListValues().Data()
		entries := array.NewData(g.entryType(), kd.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{kd, vd}, 0, 0)
		defer entries.Release()
		d := keys.Data()
		data := array.NewData(g.dataType(), d.Len(), d.Buffers(), []arrow.ArrayData{entries}, d.NullN(), d.Offset())
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	children := make([]arrow.ArrayData, len(parts))
	for i, p := range parts {
		children[i] = p.Data()
	}
	var valid *memory.Buffer
	nulls := 0
	if g.nullable {
		// A row whose first leaf is defined below the group's level is a null group.
		rr := g.parts[0].rr
		defs := rr.DefLevels()[:rr.LevelsPos()]
		if int64(len(defs)) != n {
			return nil, errMapParts
		}
		bits := make([]byte, bitutil.BytesForBits(n))
		for i, d := range defs {
			if d >= g.def {
				bitutil.SetBit(bits, i)
			} else {
				nulls++
			}
		}
		if nulls > 0 {
			valid = memory.NewBufferBytes(bits)
		}
	}
	data := array.NewData(g.dataType(), int(n), []*memory.Buffer{valid}, children, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}
