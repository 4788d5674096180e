package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMemo(t *testing.T) {
	var nilMemo *Memo
	nilMemo.Store("k", 1)
	v, cur := nilMemo.Lookup("k")
	require.Nil(t, v)
	require.False(t, cur)

	var m Memo
	m.Next()
	_, cur = m.Lookup("a")
	require.False(t, cur)
	m.Store("a", 1)
	m.Store("b", 2)
	v, cur = m.Lookup("a")
	require.Equal(t, 1, v)
	require.True(t, cur)
	m.Next() // a new record: the values stay, for their buffers, but are stale
	v, cur = m.Lookup("b")
	require.Equal(t, 2, v)
	require.False(t, cur)
	m.Store("b", 3)
	v, cur = m.Lookup("b")
	require.Equal(t, 3, v)
	require.True(t, cur)
	_, cur = m.Lookup("a")
	require.False(t, cur)
	require.Len(t, m.entries, 2)
}
