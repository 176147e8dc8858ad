// Every example in the reference's function docs (docs/language/functions
// at v1.8.0, plus strftime, grok and map from later releases): the query,
// its input (a null value where the example has none) and the exact output.

import { run } from './run';

interface Example {
  fn: string;
  runs: { input: string | null; query: string; pretty?: boolean }[];
  want: string;
}

const examples: Example[] = [
  {
    fn: 'abs',
    runs: [{ input: '1 -1 0 -1.0 -1(int8) 1(uint8) "foo"', query: 'yield abs(this)' }],
    want: '1\n1\n0\n1.\n1\n1(uint8)\nerror("abs: not a number: \\"foo\\"")\n',
  },
  { fn: 'base64', runs: [{ input: '0x010203', query: 'yield base64(this)' }], want: '"AQID"\n' },
  { fn: 'base64', runs: [{ input: '"AQID"', query: 'yield base64(this)' }], want: '0x010203\n' },
  {
    fn: 'base64',
    runs: [{ input: '"hello, world"', query: 'yield base64(bytes(this))' }],
    want: '"aGVsbG8sIHdvcmxk"\n',
  },
  {
    fn: 'base64',
    runs: [{ input: '"aGVsbG8gd29ybGQ="', query: 'yield string(base64(this))' }],
    want: '"hello world"\n',
  },
  {
    fn: 'bucket',
    runs: [
      { input: '2020-05-26T15:27:47Z "5/26/2020 3:27pm"', query: 'yield bucket(time(this), 1h)' },
    ],
    want: '2020-05-26T15:00:00Z\n2020-05-26T15:00:00Z\n',
  },
  {
    fn: 'cast',
    runs: [{ input: '"10.0.0.1" 1 "foo"', query: 'cast(this, <ip>)' }],
    want: '10.0.0.1\nerror({message:"cannot cast to ip",on:1})\nerror({message:"cannot cast to ip",on:"foo"})\n',
  },
  {
    fn: 'cast',
    runs: [{ input: '{a:1,b:2}{a:3}{b:4}', query: 'cast(this, <{b:string}>)' }],
    want: '{a:1,b:"2"}\n{a:3}\n{b:"4"}\n',
  },
  {
    fn: 'cast',
    runs: [{ input: '{a:1,b:2}{a:3,b:4}', query: 'cast(this, "foo")' }],
    want: '{a:1,b:2}(=foo)\n{a:3,b:4}(=foo)\n',
  },
  {
    fn: 'cast',
    runs: [
      {
        input: '{x:1,y:2}{r:3}{x:4,y:5}',
        query:
          'switch ( case has(x) => cast(this, "point")  default => cast(this, "radius") ) | sort this',
      },
    ],
    want: '{x:1,y:2}(=point)\n{x:4,y:5}(=point)\n{r:3}(=radius)\n',
  },
  {
    fn: 'ceil',
    runs: [{ input: '1.5 -1.5 1(uint8) 1.5(float32)', query: 'yield ceil(this)' }],
    want: '2.\n-1.\n1(uint8)\n2.(float32)\n',
  },
  {
    fn: 'cidr_match',
    runs: [
      { input: '10.1.2.129 11.1.2.129 10 "foo"', query: 'yield cidr_match(10.0.0.0/8, this)' },
    ],
    want: 'true\nfalse\nfalse\nfalse\n',
  },
  {
    fn: 'cidr_match',
    runs: [
      {
        input: '[10.1.2.129,11.1.2.129] {a:10.0.0.1} {a:11.0.0.1}',
        query: 'yield cidr_match(10.0.0.0/8, this)',
      },
    ],
    want: 'true\ntrue\nfalse\n',
  },
  {
    fn: 'cidr_match',
    runs: [{ input: '10.0.0.1', query: 'yield cidr_match([1,2,3], this)' }],
    want: 'error("cidr_match: not a net: [1,2,3]")\n',
  },
  {
    fn: 'coalesce',
    runs: [{ input: null, query: 'yield coalesce(null, error("missing"), error("quiet"), 1)' }],
    want: '1\n',
  },
  {
    fn: 'coalesce',
    runs: [{ input: null, query: 'yield coalesce(null, error("missing"), error("quiet"))' }],
    want: 'null\n',
  },
  {
    fn: 'compare',
    runs: [{ input: '{a: 2, b: "1"}', query: 'yield compare(a, b)' }],
    want: '-1\n',
  },
  { fn: 'crop', runs: [{ input: '{a:1,b:2}', query: 'crop(this, <{a:int64}>)' }], want: '{a:1}\n' },
  {
    fn: 'crop',
    runs: [{ input: '[{a:1,b:2},{a:3,b:4}]', query: 'crop(this, <[{a:int64}]>)' }],
    want: '[{a:1},{a:3}]\n',
  },
  {
    fn: 'crop',
    runs: [{ input: '10.0.0.1 1 "foo"', query: 'crop(this, <{a:int64}>)' }],
    want: '10.0.0.1\n1\n"foo"\n',
  },
  {
    fn: 'error',
    runs: [{ input: '{foo:"foo"}', query: 'yield error({message:"bad value", value:this})' }],
    want: 'error({message:"bad value",value:{foo:"foo"}})\n',
  },
  {
    fn: 'error',
    runs: [{ input: '1 "foo" [1,2,3]', query: 'yield error(this)' }],
    want: 'error(1)\nerror("foo")\nerror([1,2,3])\n',
  },
  {
    fn: 'error',
    runs: [
      {
        input: 'error("exception") "exception"',
        query: 'yield {this,err:is_error(this),kind:kind(this)}',
        pretty: true,
      },
    ],
    want: '{\n    this: error("exception"),\n    err: true,\n    kind: "error"\n}\n{\n    this: "exception",\n    err: false,\n    kind: "primitive"\n}\n',
  },
  {
    fn: 'error',
    runs: [{ input: '{}', query: 'badfield:=x | yield badfield==error("missing")' }],
    want: 'error("missing")\n',
  },
  {
    fn: 'every',
    runs: [
      {
        input: '{ts:2021-02-01T12:00:01Z}',
        query: 'yield {ts,val:0},{ts:ts+1s},{ts:ts+2h2s} | yield every(1h) | sort',
      },
    ],
    want: '2021-02-01T12:00:00Z\n2021-02-01T12:00:00Z\n2021-02-01T14:00:00Z\n',
  },
  {
    fn: 'every',
    runs: [
      {
        input: '{ts:2021-02-01T12:00:01Z}',
        query:
          'yield {ts,val:1},{ts:ts+1s,val:2},{ts:ts+2h2s,val:5} | sum(val) by every(1h) | sort',
      },
    ],
    want: '{ts:2021-02-01T12:00:00Z,sum:3}\n{ts:2021-02-01T14:00:00Z,sum:5}\n',
  },
  {
    fn: 'fields',
    runs: [{ input: '{a:1,b:2,c:{d:3,e:4}}', query: 'yield fields(this)' }],
    want: '[["a"],["b"],["c","d"],["c","e"]]\n',
  },
  {
    fn: 'fields',
    runs: [{ input: '{a:1,b:2,c:{d:3,e:4}}', query: 'over fields(this) | yield join(this,".")' }],
    want: '"a"\n"b"\n"c.d"\n"c.e"\n',
  },
  {
    fn: 'fields',
    runs: [{ input: '1', query: 'yield {f:fields(this)}' }],
    want: '{f:error("missing")}\n',
  },
  {
    fn: 'fill',
    runs: [{ input: '{a:1}', query: 'fill(this, <{a:int64,b:string}>)' }],
    want: '{a:1,b:null(string)}\n',
  },
  {
    fn: 'fill',
    runs: [{ input: '[{a:1},{a:2}]', query: 'fill(this, <[{a:int64,b:int64}]>)' }],
    want: '[{a:1,b:null(int64)},{a:2,b:null(int64)}]\n',
  },
  {
    fn: 'fill',
    runs: [{ input: '10.0.0.1 1 "foo"', query: 'fill(this, <{a:int64,b:int64}>)' }],
    want: '10.0.0.1\n1\n"foo"\n',
  },
  {
    fn: 'flatten',
    runs: [{ input: '{a:1,b:{c:"foo"}}', query: 'yield flatten(this)' }],
    want: '[{key:["a"],value:1},{key:["b","c"],value:"foo"}]\n',
  },
  {
    fn: 'floor',
    runs: [{ input: '1.5 -1.5 1(uint8) 1.5(float32)', query: 'yield floor(this)' }],
    want: '1.\n-2.\n1(uint8)\n1.(float32)\n',
  },
  {
    fn: 'grep',
    runs: [{ input: '{foo:10}{bar:{s:"baz"}}', query: 'grep("baz")' }],
    want: '{bar:{s:"baz"}}\n',
  },
  { fn: 'grep', runs: [{ input: '{foo:10}{bar:{s:"baz"}}', query: 'grep("10")' }], want: '' },
  {
    fn: 'grep',
    runs: [{ input: '{foo:10}{bar:{s:"baz"}}', query: 'grep("foo")' }],
    want: '{foo:10}\n',
  },
  {
    fn: 'grep',
    runs: [{ input: '{foo:10}{bar:{s:"baz"}}', query: 'grep(/foo|baz/)' }],
    want: '{foo:10}\n{bar:{s:"baz"}}\n',
  },
  {
    fn: 'grep',
    runs: [{ input: '{s:"bar"}{s:"foo"}{s:"baz"}{t:"baz"}', query: 'grep(b*, s)' }],
    want: '{s:"bar"}\n{s:"baz"}\n',
  },
  {
    fn: 'has',
    runs: [
      { input: '{foo:10}', query: 'yield {yes:has(foo),no:has(bar)}' },
      { input: '{foo:[1,2,3]}', query: 'yield {yes: has(foo[0]),no:has(foo[3])}' },
      { input: '{foo:{bar:"value"}}', query: 'yield {yes:has(foo.bar),no:has(foo.baz)}' },
      { input: '{foo:10}', query: 'yield {yes:has(foo+1),no:has(bar+1)}' },
      { input: '1', query: 'yield has(bar)' },
      { input: '{x:error("missing")}', query: 'yield has(x)' },
    ],
    want: '{yes:true,no:false}\n{yes:true,no:false}\n{yes:true,no:false}\n{yes:true,no:false}\nfalse\nfalse\n',
  },
  {
    fn: 'has_error',
    runs: [
      { input: '{a:{b:"foo"}}', query: 'yield has_error(this)' },
      { input: '{a:{b:"foo"}}', query: 'a.x := a.y + 1 | yield has_error(this)' },
    ],
    want: 'false\ntrue\n',
  },
  { fn: 'hex', runs: [{ input: '0x0102ff', query: 'yield hex(this)' }], want: '"0102ff"\n' },
  { fn: 'hex', runs: [{ input: '"0102ff"', query: 'yield hex(this)' }], want: '0x0102ff\n' },
  {
    fn: 'hex',
    runs: [{ input: '"hello, world"', query: 'yield hex(bytes(this))' }],
    want: '"68656c6c6f2c20776f726c64"\n',
  },
  {
    fn: 'hex',
    runs: [{ input: '"68656c6c6f20776f726c64"', query: 'yield string(hex(this))' }],
    want: '"hello world"\n',
  },
  {
    fn: 'is',
    runs: [{ input: '1.', query: 'yield {yes:is(<float64>),no:is(<int64>)}' }],
    want: '{yes:true,no:false}\n',
  },
  { fn: 'is', runs: [{ input: '{s:"hello"}', query: 'yield is(<{s:string}>)' }], want: 'true\n' },
  {
    fn: 'is',
    runs: [
      { input: '{s:"hello"}(=foo)', query: 'yield is(<{s:string}>)' },
      { input: '{s:"hello"}(=foo)', query: 'yield is(<foo>)' },
    ],
    want: 'false\ntrue\n',
  },
  {
    fn: 'is',
    runs: [{ input: '{s:"hello"}(=foo)', query: 'yield typeunder(this)==<{s:string}>' }],
    want: 'true\n',
  },
  { fn: 'is_error', runs: [{ input: '1', query: 'yield is_error(this)' }], want: 'false\n' },
  { fn: 'is_error', runs: [{ input: 'error(1)', query: 'yield is_error(this)' }], want: 'true\n' },
  {
    fn: 'is_error',
    runs: [
      {
        input: '"not an error" error("an error")',
        query: 'yield {err:is_error(this),message:under(this)}',
      },
    ],
    want: '{err:false,message:"not an error"}\n{err:true,message:"an error"}\n',
  },
  {
    fn: 'join',
    runs: [{ input: '["a","b","c"]', query: 'yield join(this, ",")' }],
    want: '"a,b,c"\n',
  },
  {
    fn: 'join',
    runs: [
      { input: '[1,2,3] [10.0.0.1,10.0.0.2]', query: 'yield join(cast(this, <[string]>), "...")' },
    ],
    want: '"1...2...3"\n"10.0.0.1...10.0.0.2"\n',
  },
  {
    fn: 'kind',
    runs: [{ input: '1 "a" 10.0.0.1', query: 'yield kind(this)' }],
    want: '"primitive"\n"primitive"\n"primitive"\n',
  },
  {
    fn: 'kind',
    runs: [{ input: '{} [] |[]| |{}| 1((int64,string))', query: 'yield kind(this)' }],
    want: '"record"\n"array"\n"set"\n"map"\n"union"\n',
  },
  { fn: 'kind', runs: [{ input: 'null', query: 'yield kind(1/0)' }], want: '"error"\n' },
  { fn: 'kind', runs: [{ input: '<{s:string}>', query: 'yield kind(this)' }], want: '"record"\n' },
  {
    fn: 'ksuid',
    runs: [{ input: '{id:0x0dfc90519b60f362e84a3fdddd9b9e63e1fb90d1}', query: 'id := ksuid(id)' }],
    want: '{id:"1zjJzTWWCJNVrGwqB8kZwhTM2fR"}\n',
  },
  {
    fn: 'len',
    runs: [
      {
        input: '[1,2,3] |["hello"]| {a:1,b:2} "hello" 10.0.0.1 1',
        query: 'yield {this,len:len(this)}',
      },
    ],
    want: '{this:[1,2,3],len:3}\n{this:|["hello"]|,len:1}\n{this:{a:1,b:2},len:2}\n{this:"hello",len:5}\n{this:10.0.0.1,len:4}\n{this:1,len:error("len: bad type: int64")}\n',
  },
  {
    fn: 'levenshtein',
    runs: [{ input: '{a:"kitten",b:"sitting"}', query: 'yield levenshtein(a, b)' }],
    want: '3\n',
  },
  {
    fn: 'log',
    runs: [{ input: '4 4.0 2.718 -1', query: 'yield log(this)' }],
    want: '1.3862943611198906\n1.3862943611198906\n0.999896315728952\nerror("log: illegal argument: -1")\n',
  },
  {
    fn: 'log',
    runs: [{ input: '9 10 20 1000 1100 30000', query: 'yield int64(log(this)/log(10))' }],
    want: '0\n1\n1\n2\n3\n4\n',
  },
  { fn: 'lower', runs: [{ input: '"Zed"', query: 'yield lower(this)' }], want: '"zed"\n' },
  {
    fn: 'missing',
    runs: [
      { input: '{foo:10}', query: 'yield {yes:missing(bar),no:missing(foo)}' },
      { input: '{foo:[1,2,3]}', query: 'yield {yes:has(foo[3]),no:has(foo[0])}' },
      { input: '{foo:{bar:"value"}}', query: 'yield {yes:missing(foo.baz),no:missing(foo.bar)}' },
      { input: '{foo:10}', query: 'yield {yes:missing(bar+1),no:missing(foo+1)}' },
      { input: '1', query: 'yield missing(bar)' },
      { input: '{x:error("missing")}', query: 'yield missing(x)' },
    ],
    want: '{yes:true,no:false}\n{yes:false,no:true}\n{yes:true,no:false}\n{yes:true,no:false}\ntrue\ntrue\n',
  },
  {
    fn: 'nameof',
    runs: [{ input: '80(port=int16) 80', query: 'yield nameof(this)' }],
    want: '"port"\nerror("missing")\n',
  },
  {
    fn: 'nameof',
    runs: [{ input: '80(port=int16) 80', query: 'yield quiet(nameof(this))' }],
    want: '"port"\n',
  },
  {
    fn: 'nest_dotted',
    runs: [{ input: '{"a.b.c":"foo"}', query: 'yield nest_dotted()' }],
    want: '{a:{b:{c:"foo"}}}\n',
  },
  {
    fn: 'network_of',
    runs: [{ input: '10.1.2.129', query: 'yield network_of(this, 255.255.255.128)' }],
    want: '10.1.2.128/25\n',
  },
  {
    fn: 'network_of',
    runs: [{ input: '10.1.2.129', query: 'yield network_of(this, 25)' }],
    want: '10.1.2.128/25\n',
  },
  {
    fn: 'network_of',
    runs: [{ input: '10.1.2.129', query: 'yield network_of(this)' }],
    want: '10.0.0.0/8\n',
  },
  {
    fn: 'network_of',
    runs: [{ input: '1', query: 'yield network_of(this)' }],
    want: 'error("network_of: not an IP")\n',
  },
  {
    fn: 'network_of',
    runs: [{ input: '10.1.2.129', query: 'yield network_of(this, 255.255.128.255)' }],
    want: 'error("network_of: mask 255.255.128.255 is non-contiguous")\n',
  },
  {
    fn: 'order',
    runs: [{ input: '{b:"foo", a:1}', query: 'order(this, <{a:int64,b:string}>)' }],
    want: '{a:1,b:"foo"}\n',
  },
  {
    fn: 'order',
    runs: [{ input: '{c:0, a:1, b:"foo"}', query: 'order(this, <{}>)' }],
    want: '{a:1,b:"foo",c:0}\n',
  },
  {
    fn: 'order',
    runs: [{ input: '10.0.0.1 1 "foo"', query: 'fill(this, <{a:int64,b:int64}>)' }],
    want: '10.0.0.1\n1\n"foo"\n',
  },
  {
    fn: 'parse_uri',
    runs: [
      {
        input: '"scheme://user:password@host:12345/path?a=1&a=2&b=3&c=#fragment"',
        query: 'yield parse_uri(this)',
        pretty: true,
      },
    ],
    want: '{\n    scheme: "scheme",\n    opaque: null (string),\n    user: "user",\n    password: "password",\n    host: "host",\n    port: 12345 (uint16),\n    path: "/path",\n    query: |{\n        "a": [\n            "1",\n            "2"\n        ],\n        "b": [\n            "3"\n        ],\n        "c": [\n            ""\n        ]\n    }|,\n    fragment: "fragment"\n}\n',
  },
  {
    fn: 'parse_zson',
    runs: [{ input: '{foo:"{a:\\"1\\",b:2}"}', query: 'foo := parse_zson(foo)' }],
    want: '{foo:{a:"1",b:2}}\n',
  },
  {
    fn: 'parse_zson',
    runs: [{ input: '{"foo": "{\\"a\\": \\"1\\", \\"b\\": 2}"}', query: 'foo := parse_zson(foo)' }],
    want: '{foo:{a:"1",b:2}}\n',
  },
  { fn: 'pow', runs: [{ input: '2', query: 'yield pow(this, 5)' }], want: '32.\n' },
  { fn: 'quiet', runs: [{ input: 'error("missing")', query: 'yield quiet(this)' }], want: '' },
  {
    fn: 'quiet',
    runs: [{ input: 'error("missing")', query: 'yield this' }],
    want: 'error("missing")\n',
  },
  {
    fn: 'quiet',
    runs: [{ input: '{a:1}', query: 'cut b:=x+1,c:=quiet(x+1),d:=quiet(a+1)' }],
    want: '{b:error("missing"),d:2}\n',
  },
  {
    fn: 'regexp',
    runs: [{ input: '"seafood fool friend"', query: 'yield regexp(/foo(.?) (\\w+) fr.*/, this)' }],
    want: '["food fool friend","d","fool"]\n',
  },
  {
    fn: 'regexp',
    runs: [{ input: '"foo"', query: 'yield regexp("bar", this)' }],
    want: 'null([string])\n',
  },
  {
    fn: 'regexp_replace',
    runs: [{ input: '"-ab-axxb-"', query: 'yield regexp_replace(this, /ax*b/, "T")' }],
    want: '"-T-T-"\n',
  },
  {
    fn: 'regexp_replace',
    runs: [
      {
        input: '"option: value"',
        query: 'yield regexp_replace(this,/(\\w+):\\s+(\\w+)$/,"$1=$2")',
      },
    ],
    want: '"option=value"\n',
  },
  {
    fn: 'regexp_replace',
    runs: [
      {
        input: '"option: value"',
        query: 'yield regexp_replace(this,/(?P<key>\\w+):\\s+(?P<value>\\w+)$/,"$key=$value")',
      },
    ],
    want: '"option=value"\n',
  },
  {
    fn: 'replace',
    runs: [{ input: '"oink oink oink"', query: 'yield replace(this, "oink", "moo")' }],
    want: '"moo moo moo"\n',
  },
  {
    fn: 'round',
    runs: [{ input: '3.14 -1.5 0 1', query: 'yield round(this)' }],
    want: '3.\n-2.\n0\n1\n',
  },
  {
    fn: 'rune_len',
    runs: [{ input: '"hello" "😎"', query: 'yield rune_len(this)' }],
    want: '5\n1\n',
  },
  {
    fn: 'rune_len',
    runs: [{ input: '"hello" "😎"', query: 'yield len(bytes(this))' }],
    want: '5\n4\n',
  },
  {
    fn: 'shape',
    runs: [{ input: '{b:1,a:2}{a:3}{b:4,c:5}', query: 'shape(this, <{a:int64,b:string}>)' }],
    want: '{a:2,b:"1"}\n{a:3,b:null(string)}\n{a:null(int64),b:"4",c:5}\n',
  },
  {
    fn: 'split',
    runs: [{ input: '"apple;banana;pear;peach"', query: 'yield split(this,";")' }],
    want: '["apple","banana","pear","peach"]\n',
  },
  {
    fn: 'split',
    runs: [{ input: '"10.0.0.1,10.0.0.2,10.0.0.3"', query: 'yield cast(split(this,","),<[ip]>)' }],
    want: '[10.0.0.1,10.0.0.2,10.0.0.3]\n',
  },
  {
    fn: 'sqrt',
    runs: [{ input: '4 2. 1e10 -1', query: 'yield sqrt(this)' }],
    want: '2.\n1.4142135623730951\n100000.\nNaN\n',
  },
  { fn: 'trim', runs: [{ input: '" = Zed = "', query: 'yield trim(this)' }], want: '"= Zed ="\n' },
  {
    fn: 'typename',
    runs: [{ input: '80(port=int16)', query: 'yield typename("port")' }],
    want: '<port=int16>\n',
  },
  {
    fn: 'typename',
    runs: [{ input: '{name:"port",p:80(port=int16)}', query: 'yield typename(name)' }],
    want: '<port=int16>\n',
  },
  {
    fn: 'typename',
    runs: [{ input: '80', query: 'yield typename("port")' }],
    want: 'error("missing")\n',
  },
  {
    fn: 'typeof',
    runs: [
      {
        input: '1 "foo" 10.0.0.1 [1,2,3] {s:"foo"} null error("missing")',
        query: 'yield typeof(this)',
      },
    ],
    want: '<int64>\n<string>\n<ip>\n<[int64]>\n<{s:string}>\n<null>\n<error(string)>\n',
  },
  {
    fn: 'typeof',
    runs: [{ input: 'null', query: 'yield typeof(typeof(this))' }],
    want: '<type>\n',
  },
  {
    fn: 'typeunder',
    runs: [
      {
        input: '{which:"chocolate"}(=flavor)',
        query: 'yield {typeof:typeof(this),typeunder:typeunder(this)}',
      },
    ],
    want: '{typeof:<flavor={which:string}>,typeunder:<{which:string}>}\n',
  },
  {
    fn: 'under',
    runs: [
      { input: '1((int64,string)) "foo"((int64,string))', query: 'yield this' },
      { input: '1((int64,string)) "foo"((int64,string))', query: 'yield under(this)' },
    ],
    want: '1((int64,string))\n"foo"((int64,string))\n1\n"foo"\n',
  },
  {
    fn: 'under',
    runs: [
      { input: 'error("foo") error({err:"message"})', query: 'yield this' },
      { input: 'error("foo") error({err:"message"})', query: 'yield under(this)' },
    ],
    want: 'error("foo")\nerror({err:"message"})\n"foo"\n{err:"message"}\n',
  },
  {
    fn: 'under',
    runs: [
      { input: '80(port=uint16)', query: 'yield this' },
      { input: '80(port=uint16)', query: 'yield under(this)' },
    ],
    want: '80(port=uint16)\n80(uint16)\n',
  },
  {
    fn: 'under',
    runs: [{ input: '1 "foo" <int16> {x:1}', query: 'yield under(this)' }],
    want: '1\n"foo"\n<int16>\n{x:1}\n',
  },
  {
    fn: 'unflatten',
    runs: [{ input: '[{key:"a",value:1},{key:["b"],value:2}]', query: 'yield unflatten(this)' }],
    want: '{a:1,b:2}\n',
  },
  {
    fn: 'unflatten',
    runs: [
      {
        input: '{a:1,rm:2}',
        query:
          'over flatten(this) => (key[0] != "rm" | yield collect(this)) | yield unflatten(this)',
      },
    ],
    want: '{a:1}\n',
  },
  { fn: 'upper', runs: [{ input: '"Zed"', query: 'yield upper(this)' }], want: '"ZED"\n' },
  // Later releases (strftime at v1.18.0, grok and map at v1.13.0), with
  // bare expressions written as yields.
  {
    fn: 'strftime',
    runs: [{ input: '2024-07-30T20:05:15.118252Z', query: 'yield strftime("%Y", this)' }],
    want: '"2024"\n',
  },
  {
    fn: 'strftime',
    runs: [{ input: '2024-07-30T20:05:15.118252Z', query: 'yield strftime("%d/%m/%Y", this)' }],
    want: '"30/07/2024"\n',
  },
  {
    fn: 'grok',
    runs: [
      {
        input:
          '"Jan  1 06:25:43 mailserver14 postfix/cleanup[21403]: BEF25A72965: message-id=<20130101142543.5828399CCAF@mailserver14.example.com>"',
        query:
          'yield grok("%{SYSLOGBASE} %{POSTFIX_QUEUEID:queue_id}: %{GREEDYDATA:syslog_message}", this, "POSTFIX_QUEUEID [0-9A-F]{10,11}")',
        pretty: true,
      },
    ],
    want: '{\n    timestamp: "Jan  1 06:25:43",\n    logsource: "mailserver14",\n    program: "postfix/cleanup",\n    pid: "21403",\n    queue_id: "BEF25A72965",\n    syslog_message: "message-id=<20130101142543.5828399CCAF@mailserver14.example.com>"\n}\n',
  },
  {
    fn: 'grok',
    runs: [
      {
        input: '"2020-09-16T04:20:42.45+01:00 DEBUG This is a sample debug log message"',
        query:
          'yield grok("%{TIMESTAMP_ISO8601:timestamp} %{LOGLEVEL:level} %{GREEDYDATA:message}", this)',
        pretty: true,
      },
    ],
    want: '{\n    timestamp: "2020-09-16T04:20:42.45+01:00",\n    level: "DEBUG",\n    message: "This is a sample debug log message"\n}\n',
  },
  {
    fn: 'grok',
    runs: [
      { input: '"+7000"', query: 'yield grok("%{MY_NUMTZ:tz}", this, "MY_NUMTZ [+-]\\\\d{4}")' },
    ],
    want: '{tz:"+7000"}\n',
  },
  {
    fn: 'grok',
    runs: [
      {
        input: '"(555)-1212"',
        query:
          'yield grok("\\\\(%{PH_PREFIX:prefix}\\\\)-%{PH_LINE_NUM:line_number}", this, "PH_PREFIX \\\\d{3}\\n" + "PH_LINE_NUM \\\\d{4}")',
      },
    ],
    want: '{prefix:"555",line_number:"1212"}\n',
  },
  {
    fn: 'map',
    runs: [{ input: '["foo","bar","baz"]', query: 'yield map(this, upper)' }],
    want: '["FOO","BAR","BAZ"]\n',
  },
  {
    fn: 'map',
    runs: [{ input: '{a:|["foo","bar","baz"]|}', query: 'a := map(a,upper)' }],
    want: '{a:|["BAR","BAZ","FOO"]|}\n',
  },
  {
    fn: 'map',
    runs: [{ input: '["1","2","3"]', query: 'yield map(this,int64)' }],
    want: '[1,2,3]\n',
  },
];

describe('documented examples', () => {
  for (const [i, ex] of examples.entries()) {
    test(`${ex.fn} #${i}`, async () => {
      let got = '';
      for (const r of ex.runs) got += await run(r.query, r.input, r.pretty ? 4 : 0);
      expect(got).toBe(ex.want);
    });
  }
});
