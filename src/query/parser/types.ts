// Type syntax: `<...>` type values, cast types, explode types and type
// declarations.

import type { Type, TypeField, TypeValue } from '../ast';
import { Lexical } from './lexical';

export class TypeParser extends Lexical {
  /** TypeLiteral / AmbiguousType / ComplexType */
  protected type(): Type | null {
    return this.typeLiteral() ?? this.ambiguousType() ?? this.complexType();
  }

  /** `<Type>` */
  protected typeLiteral(): TypeValue | null {
    const start = this.pos;
    if (this.lit('<')) {
      const t = this.type();
      if (t !== null && this.lit('>')) return { kind: 'TypeValue', value: t };
    }
    this.pos = start;
    return null;
  }

  /** A primitive type, a type name or definition, or a parenthesized union. */
  private ambiguousType(): Type | null {
    const start = this.pos;
    const prim = this.primitiveTypeName();
    if (prim !== null && this.notIdentRest()) return { kind: 'TypePrimitive', name: prim };
    this.pos = start;
    const name = this.identifierName();
    if (name !== null) {
      const afterName = this.pos;
      this.sp();
      if (this.lit('=')) {
        this.sp();
        const t = this.type();
        if (t !== null) return { kind: 'TypeDef', name, type: t };
      }
      this.pos = afterName;
      return { kind: 'TypeName', name };
    }
    const quoted = this.quotedString();
    if (quoted !== null) return { kind: 'TypeName', name: quoted };
    if (this.lit('(')) {
      this.sp();
      const types = this.typeList();
      if (types !== null && this.lit(')')) return { kind: 'TypeUnion', types };
    }
    this.pos = start;
    return null;
  }

  /** Type (, Type)+ : at least two. */
  private typeList(): Type[] | null {
    const start = this.pos;
    const types = this.commaList(() => this.type());
    if (types !== null && types.length >= 2) return types;
    this.pos = start;
    return null;
  }

  /** Record, array, set and map types. */
  private complexType(): Type | null {
    const fields = this.enclosed('{', '}', () => this.typeFields());
    if (fields !== null) return { kind: 'TypeRecord', fields };
    const elem = this.enclosed('[', ']', () => this.type());
    if (elem !== null) return { kind: 'TypeArray', type: elem };
    const member = this.enclosed('|[', ']|', () => this.type());
    if (member !== null) return { kind: 'TypeSet', type: member };
    const kv = this.enclosed('|{', '}|', () =>
      this.separated(
        () => this.type(),
        ':',
        () => this.type(),
      ),
    );
    if (kv !== null) return { kind: 'TypeMap', keyType: kv[0], valType: kv[1] };
    return null;
  }

  /** TypeField (, TypeField)* or nothing. */
  private typeFields(): TypeField[] {
    return this.commaList(() => this.typeField()) ?? [];
  }

  /** FieldName : Type */
  private typeField(): TypeField | null {
    const f = this.separated(
      () => this.fieldName(),
      ':',
      () => this.type(),
    );
    return f === null ? null : { name: f[0], type: f[1] };
  }

  /** IdentifierName / QuotedString */
  protected fieldName(): string | null {
    return this.identifierName() ?? this.quotedString();
  }
}
