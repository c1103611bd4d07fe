package sharedv1

// StringValue is a StringValueOrRef holding the literal v, e.g. a cluster id.
func StringValue(v string) *StringValueOrRef {
	return &StringValueOrRef{LiteralOrRef: &StringValueOrRef_Value{Value: v}}
}

// StringValueFrom is a StringValueOrRef read at deployment from the stack ref points at.
func StringValueFrom(ref *ValueFromRef) *StringValueOrRef {
	return &StringValueOrRef{LiteralOrRef: &StringValueOrRef_ValueFrom{ValueFrom: ref}}
}
