//! Round-trip property tests for every encoding and type, and random bytes
//! into every decoder (errors allowed, panics not).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pq_encoding::{ByteArrayDecode, dictionary, group_var_int as gvi, plain, rle};
use pq_encoding::{
    alp, bit_pack, byte_stream_split as bss, delta_binary_packed as dbp, delta_byte_array as dba,
};
use proptest::prelude::*;

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    }
}

fn edge_i64() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0),
        Just(-1),
        any::<i64>(),
        -1000i64..1000
    ]
}
fn edge_i32() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(i32::MIN),
        Just(i32::MAX),
        Just(0),
        Just(-1),
        any::<i32>(),
        -1000i32..1000
    ]
}
/// Lengths around block boundaries (128-value blocks, 32-value miniblocks).
fn len() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..3, 126usize..131, 255usize..258, 0usize..700]
}
fn vec_i64() -> impl Strategy<Value = Vec<i64>> {
    len().prop_flat_map(|n| {
        prop_oneof![
            prop::collection::vec(edge_i64(), n),
            edge_i64().prop_map(move |v| vec![v; n])
        ]
    })
}
fn vec_i32() -> impl Strategy<Value = Vec<i32>> {
    len().prop_flat_map(|n| {
        prop_oneof![
            prop::collection::vec(edge_i32(), n),
            edge_i32().prop_map(move |v| vec![v; n])
        ]
    })
}
fn f64s() -> impl Strategy<Value = Vec<f64>> {
    let v = prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        (-100000i64..100000).prop_map(|i| i as f64 / 100.0),
        Just(f64::NAN),
        Just(f64::from_bits(0x7FF0_0000_0000_0001)),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(f64::MIN_POSITIVE),
    ];
    len().prop_flat_map(move |n| prop::collection::vec(v.clone(), n))
}
fn f32s() -> impl Strategy<Value = Vec<f32>> {
    let v = prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        (-100000i32..100000).prop_map(|i| i as f32 / 100.0),
        Just(f32::NAN),
        Just(-0.0f32),
        Just(f32::NEG_INFINITY),
    ];
    len().prop_flat_map(move |n| prop::collection::vec(v.clone(), n))
}
fn byte_arrays() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(
        prop::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), any::<u8>()], 0..12),
        0..200,
    )
}

fn bits64(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}
fn bits32(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

proptest! {
    #![proptest_config(cfg())]

    /// Skipping PLAIN byte arrays agrees with decoding them one at a time
    /// (the naive way): the same count, the same position after, and an
    /// error exactly where decoding one fails; on cut buffers too.
    #[test]
    fn plain_byte_array_skip_matches_decoding_one_by_one(arrays in byte_arrays(), skip in 0usize..80, cut in 0usize..4000) {
        let mut buf = Vec::new();
        plain::encode_byte_array(arrays.iter().map(|a| a.as_slice()), &mut buf);
        buf.truncate(cut.min(buf.len()).max(buf.len().saturating_sub(cut % 7)));
        let mut fast = plain::ByteArrayDecoder::new(&buf);
        let got = fast.skip(skip);
        let mut slow = plain::ByteArrayDecoder::new(&buf);
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        let mut want = Ok(0usize);
        for _ in 0..skip {
            match slow.decode(&mut o, &mut v, 1) {
                Ok(1) => want = want.map(|n| n + 1),
                Ok(_) => break,
                Err(e) => { want = Err(e); break; }
            }
        }
        prop_assert_eq!(got.is_ok(), want.is_ok(), "{:?} {:?}", got, want);
        if let (Ok(g), Ok(w)) = (got, want) {
            prop_assert_eq!(g, w);
            prop_assert_eq!(fast.position(), slow.position());
        }
    }

    #[test]
    fn plain_fixed(a in vec_i32(), b in vec_i64(), c in f64s(), d in f32s()) {
        fn rt<T: plain::FixedWidth>(v: &[T]) -> Vec<T> {
            let mut buf = Vec::new();
            plain::encode(v, &mut buf);
            let mut out = Vec::new();
            plain::PlainDecoder::<T>::new(&buf).decode_into(&mut out, v.len()).unwrap();
            out
        }
        prop_assert_eq!(rt(&a), a.clone());
        prop_assert_eq!(rt(&b), b.clone());
        prop_assert_eq!(bits64(&rt(&c)), bits64(&c));
        prop_assert_eq!(bits32(&rt(&d)), bits32(&d));
        let i96: Vec<[u32; 3]> = b.iter().map(|&x| [x as u32, (x >> 32) as u32, x as u32 ^ 7]).collect();
        prop_assert_eq!(rt(&i96), i96);
    }

    /// PLAIN fixed-width values decoded in steps of any size after what the
    /// vector held, from a page cut anywhere (a partial last value), against
    /// the values one by one: each step appends exactly its values, and a
    /// step asking for more than are left fails and appends nothing.
    #[test]
    fn plain_fixed_in_steps(
        v in vec_i64(),
        head in prop::collection::vec(any::<i64>(), 0..5),
        steps in prop::collection::vec(0usize..40, 1..20),
        cut in 0usize..8,
    ) {
        let mut buf = Vec::new();
        plain::encode(&v, &mut buf);
        buf.truncate(buf.len().saturating_sub(cut));
        let whole = buf.len() / 8;
        let mut dec = plain::PlainDecoder::<i64>::new(&buf);
        let mut out = head.clone();
        let mut read = 0;
        for n in steps {
            let before = out.clone();
            match dec.decode_into(&mut out, n) {
                Ok(()) => {
                    prop_assert!(read + n <= whole);
                    prop_assert_eq!(&out[..before.len()], &before[..]);
                    prop_assert_eq!(&out[before.len()..], &v[read..read + n]);
                    read += n;
                }
                Err(_) => {
                    prop_assert!(read + n > whole);
                    prop_assert_eq!(&out, &before);
                }
            }
            prop_assert_eq!(dec.remaining(), whole - read);
        }
    }

    /// Runs of values of one length (the uniform path: flags, codes)
    /// between values of other lengths, decoded in steps of any size and
    /// cut anywhere, against a naive reading of the prefixes one by one:
    /// the same values and offsets, and an error exactly where a value is
    /// not whole.
    #[test]
    fn plain_byte_arrays_in_runs_of_one_length(
        runs in prop::collection::vec((prop_oneof![0usize..40, 60usize..70], 1usize..150), 1..8),
        cut in prop_oneof![Just(0usize), 0usize..12],
        step in prop_oneof![Just(64usize), 1usize..200],
        big in any::<bool>(),
    ) {
        let mut arrays: Vec<Vec<u8>> = Vec::new();
        for (r, &(len, count)) in runs.iter().enumerate() {
            for i in 0..count {
                arrays.push((0..len).map(|j| (r * 31 + i * 7 + j) as u8).collect());
            }
        }
        let mut buf = Vec::new();
        plain::encode_byte_array(arrays.iter().map(|v| v.as_slice()), &mut buf);
        if big {
            // A length no value can have, in the middle of a run: the
            // true length's low byte under a high byte flipped, so that only
            // a check of the whole prefix tells it from its neighbours'.
            let mid = arrays.len() / 2;
            let pos: usize = arrays[..mid].iter().map(|v| 4 + v.len()).sum();
            let bad_len = (1u32 << 24) | arrays[mid].len() as u32;
            buf[pos..pos + 4].copy_from_slice(&bad_len.to_le_bytes());
        }
        buf.truncate(buf.len() - cut.min(buf.len()));
        // The naive reading.
        let (mut want, mut pos, mut bad) = (Vec::new(), 0usize, false);
        while pos < buf.len() {
            let Some(l) = buf.get(pos..pos + 4) else { bad = true; break };
            let l = u32::from_le_bytes(l.try_into().unwrap()) as usize;
            let Some(v) = buf.get(pos + 4..).and_then(|r| r.get(..l)) else { bad = true; break };
            want.push(v.to_vec());
            pos += 4 + l;
        }
        let mut dec = plain::ByteArrayDecoder::new(&buf);
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        let (mut got, mut failed, mut kept) = (0usize, false, (0usize, 0usize));
        loop {
            match dec.decode(&mut o, &mut v, step) {
                Ok(k) => {
                    got += k;
                    kept = (o.len(), v.len());
                    if k < step { break; }
                }
                Err(_) => { failed = true; break; }
            }
        }
        prop_assert_eq!(failed, bad);
        if !bad {
            prop_assert_eq!(got, want.len());
        }
        prop_assert!(got <= want.len());
        let (o, v) = (&o[..kept.0], &v[..kept.1]);
        prop_assert_eq!(v, &want[..got].concat()[..]);
        let mut ends = vec![0i32];
        for w in &want[..got] {
            ends.push(ends.last().unwrap() + w.len() as i32);
        }
        if got > 0 {
            prop_assert_eq!(o, &ends[..]);
        }
        // Skipping `step` values, then decoding the rest: the same values
        // after the skipped ones, or the same error.
        let mut dec = plain::ByteArrayDecoder::new(&buf);
        let skipped = dec.skip(step);
        let k = step.min(want.len());
        if bad && step > want.len() {
            prop_assert!(skipped.is_err());
        } else {
            prop_assert_eq!(skipped.ok(), Some(k));
            let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
            let rest = dec.decode(&mut o, &mut v, usize::MAX);
            prop_assert_eq!(rest.is_err(), bad);
            if !bad {
                prop_assert_eq!(v, want[k..].concat());
            }
        }
    }

    #[test]
    fn plain_bool_and_bytes(bools in prop::collection::vec(any::<bool>(), 0..300), arrays in byte_arrays()) {
        let mut buf = Vec::new();
        plain::encode_bool(&bools, &mut buf);
        let mut out = vec![false; bools.len()];
        prop_assert_eq!(plain::BooleanDecoder::new(&buf).decode(&mut out).unwrap(), bools.len());
        prop_assert_eq!(out, bools);
        let mut buf = Vec::new();
        plain::encode_byte_array(arrays.iter().map(|v| v.as_slice()), &mut buf);
        let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
        prop_assert_eq!(plain::ByteArrayDecoder::new(&buf).decode(&mut o, &mut v, usize::MAX).unwrap(), arrays.len());
        prop_assert_eq!(v, arrays.concat());
        let flat: Vec<u8> = arrays.iter().flat_map(|a| { let mut x = a.clone(); x.resize(5, 0); x }).collect();
        let mut out = Vec::new();
        plain::FixedLenDecoder::new(&flat, 5).unwrap().decode(&mut out, arrays.len()).unwrap();
        prop_assert_eq!(out, flat);
    }

    #[test]
    fn rle_hybrid(width in 0u8..=32, raw in prop::collection::vec(any::<u32>(), 0..600), runs in any::<bool>(), skip in 0usize..100) {
        let mask = bit_pack::mask64(width.into()) as u32;
        let vals: Vec<u32> = if runs { raw.iter().map(|v| (v % 3) & mask).flat_map(|v| vec![v; (v as usize) * 5 + 1]).collect() } else { raw.iter().map(|v| v & mask).collect() };
        let mut buf = Vec::new();
        rle::encode(&vals, width, &mut buf);
        let mut out: Vec<u32> = Vec::new();
        rle::RleDecoder::new(&buf, width).unwrap().decode_into(&mut out, vals.len()).unwrap();
        prop_assert_eq!(&out, &vals);
        let mut dec = rle::RleDecoder::new(&buf, width).unwrap();
        let k = dec.skip(skip.min(vals.len())).unwrap();
        let mut rest = vec![0i64; vals.len() - k];
        prop_assert_eq!(dec.decode(&mut rest).unwrap(), rest.len());
        prop_assert!(rest.iter().zip(&vals[k..]).all(|(&a, &b)| a == i64::from(b)));
        let mut msb = Vec::new();
        bit_pack::pack_msb(&vals, width.into(), &mut msb);
        let mut back = vec![0u32; vals.len()];
        bit_pack::unpack_msb(&msb, width.into(), &mut back).unwrap();
        prop_assert_eq!(back, vals);
    }

    #[test]
    fn delta_ints(a in vec_i32(), b in vec_i64(), geometry in 0usize..3) {
        let (bs, mb) = [(128, 4), (128, 1), (256, 2)][geometry];
        let mut buf = Vec::new();
        let mut enc = dbp::DeltaBitPackEncoder::<i32>::with_block_size(bs, mb).unwrap();
        enc.put(&a);
        enc.finish(&mut buf);
        let mut dec = dbp::DeltaBitPackDecoder::<i32>::new(&buf).unwrap();
        let mut out = Vec::new();
        dec.decode_into(&mut out, a.len()).unwrap();
        prop_assert_eq!(out, a.clone());
        prop_assert_eq!(dec.bytes_consumed(), buf.len());
        prop_assert_eq!(dbp::DeltaBitPackDecoder::<i32>::new(&buf).unwrap().skip_to_end().unwrap(), buf.len());
        let mut buf = Vec::new();
        dbp::encode(&b, &mut buf);
        let mut dec = dbp::DeltaBitPackDecoder::<i64>::new(&buf).unwrap();
        let k = b.len() / 3;
        prop_assert_eq!(dec.skip(k).unwrap(), k);
        let mut out = Vec::new();
        dec.decode_into(&mut out, b.len() - k).unwrap();
        prop_assert_eq!(&out[..], &b[k..]);
    }

    #[test]
    fn delta_byte_arrays(arrays in byte_arrays()) {
        let refs: Vec<&[u8]> = arrays.iter().map(|v| v.as_slice()).collect();
        let mut buf = Vec::new();
        dba::encode_delta_length(refs.iter().copied(), &mut buf).unwrap();
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        prop_assert_eq!(dba::DeltaLengthDecoder::new(&buf).unwrap().decode(&mut o, &mut v, usize::MAX).unwrap(), arrays.len());
        prop_assert_eq!(&v, &arrays.concat());
        let mut buf = Vec::new();
        dba::encode_delta_byte_array(refs.iter().copied(), &mut buf).unwrap();
        let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
        let mut dec = dba::DeltaByteArrayDecoder::new(&buf).unwrap();
        let k = arrays.len() / 2;
        prop_assert_eq!(dec.skip(k).unwrap(), k);
        dec.decode(&mut o, &mut v, usize::MAX).unwrap();
        prop_assert_eq!(&v, &arrays[k..].concat());
        // In chunks of 1 to 4 values, after output already there: each
        // call's first value takes its prefix from the previous call's last.
        let (mut o, mut v) = (vec![0i32, 3], b"pre".to_vec());
        let mut dec = dba::DeltaByteArrayDecoder::new(&buf).unwrap();
        let mut got = 0;
        for step in (1..=4).cycle() {
            let n = dec.decode(&mut o, &mut v, step).unwrap();
            got += n;
            if n < step {
                break;
            }
        }
        prop_assert_eq!(got, arrays.len());
        prop_assert_eq!(&v[3..], &arrays.concat()[..]);
        prop_assert_eq!(o.len(), arrays.len() + 2);
        // Fixed length.
        let fixed: Vec<Vec<u8>> = arrays.iter().map(|a| { let mut x = a.clone(); x.resize(6, b'z'); x }).collect();
        let mut buf = Vec::new();
        dba::encode_delta_byte_array(fixed.iter().map(|v| v.as_slice()), &mut buf).unwrap();
        let mut out = Vec::new();
        dba::DeltaByteArrayDecoder::new(&buf).unwrap().decode_fixed(&mut out, 6, usize::MAX).unwrap();
        prop_assert_eq!(out, fixed.concat());
    }

    #[test]
    fn byte_stream_split(a in vec_i32(), b in vec_i64(), c in f64s(), d in f32s(), w in 1usize..20) {
        fn rt<T: plain::FixedWidth>(v: &[T]) -> Vec<T> {
            let mut buf = Vec::new();
            bss::encode(v, &mut buf);
            let mut out = vec![T::default(); v.len()];
            let mut dec = bss::ByteStreamSplitDecoder::new(&buf, T::SIZE).unwrap();
            let h = v.len() / 2;
            assert_eq!(dec.decode(&mut out[..h]).unwrap(), h);
            assert_eq!(dec.decode(&mut out[h..]).unwrap(), v.len() - h);
            out
        }
        prop_assert_eq!(rt(&a), a.clone());
        prop_assert_eq!(rt(&b), b.clone());
        prop_assert_eq!(bits64(&rt(&c)), bits64(&c));
        prop_assert_eq!(bits32(&rt(&d)), bits32(&d));
        let flat: Vec<u8> = b.iter().flat_map(|x| x.to_le_bytes()).take(w * (b.len() * 8 / w)).collect();
        let mut buf = Vec::new();
        bss::encode_bytes(&flat, w, &mut buf);
        let mut out = Vec::new();
        bss::ByteStreamSplitDecoder::new(&buf, w).unwrap().decode_bytes(&mut out, usize::MAX).unwrap();
        prop_assert_eq!(out, flat);
    }

    #[test]
    fn group_var_int(a in vec_i32(), b in vec_i64()) {
        let mut buf = Vec::new();
        gvi::encode_i32(&a, &mut buf);
        let mut out = vec![0; a.len().div_ceil(4) * 4];
        prop_assert_eq!(gvi::GroupVarIntDecoder32::new(&buf).decode(&mut out).unwrap(), out.len());
        prop_assert_eq!(&out[..a.len()], &a[..]);
        prop_assert!(out[a.len()..].iter().all(|&x| x == 0));
        let mut buf = Vec::new();
        gvi::encode_i64(&b, &mut buf);
        let mut out = vec![0; b.len().div_ceil(5) * 5];
        prop_assert_eq!(gvi::GroupVarIntDecoder64::new(&buf).decode(&mut out).unwrap(), out.len());
        prop_assert_eq!(&out[..b.len()], &b[..]);
    }

    #[test]
    fn alp_floats(c in f64s(), d in f32s(), log in 3u8..=11) {
        let mut buf = Vec::new();
        alp::encode_with_vector_size(&c, log, &mut buf).unwrap();
        let mut out = Vec::new();
        alp::AlpDecoder::<f64>::new(&buf).unwrap().decode_into(&mut out, c.len()).unwrap();
        prop_assert_eq!(bits64(&out), bits64(&c));
        let mut buf = Vec::new();
        alp::encode(&d, &mut buf);
        let mut dec = alp::AlpDecoder::<f32>::new(&buf).unwrap();
        let k = d.len() / 3;
        prop_assert_eq!(dec.skip(k).unwrap(), k);
        let mut out = Vec::new();
        dec.decode_into(&mut out, d.len() - k).unwrap();
        prop_assert_eq!(bits32(&out), bits32(&d[k..]));
    }

    #[test]
    fn dictionary(a in vec_i64(), arrays in byte_arrays()) {
        let small: Vec<i64> = a.iter().map(|x| x % 17).collect();
        let mut enc = dictionary::FixedDict::<i64>::new(usize::MAX);
        enc.put(&small);
        let (mut dict, mut page) = (Vec::new(), Vec::new());
        enc.write_dict(&mut dict);
        enc.write_indices(&mut page);
        let mut d = Vec::new();
        plain::PlainDecoder::<i64>::new(&dict).decode_into(&mut d, enc.num_entries()).unwrap();
        let mut idx = Vec::new();
        dictionary::indices_decoder(&page).unwrap().decode_into(&mut idx, small.len()).unwrap();
        let mut out = Vec::new();
        dictionary::gather(&d, &idx, &mut out).unwrap();
        prop_assert_eq!(out, small);

        let mut enc = dictionary::BytesDict::new();
        for v in &arrays {
            enc.put(v);
        }
        let (mut dict, mut page) = (Vec::new(), Vec::new());
        enc.write_dict(&mut dict);
        enc.write_indices(&mut page);
        let (mut doff, mut dval) = (Vec::<i32>::new(), Vec::new());
        plain::ByteArrayDecoder::new(&dict).decode(&mut doff, &mut dval, usize::MAX).unwrap();
        let mut idx = Vec::new();
        dictionary::indices_decoder(&page).unwrap().decode_into(&mut idx, arrays.len()).unwrap();
        let (mut o, mut v) = (Vec::<i32>::new(), Vec::new());
        dictionary::gather_byte_array(&doff, &dval, &idx, &mut o, &mut v).unwrap();
        prop_assert_eq!(v, arrays.concat());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Random (and lightly structured) bytes into every decoder: an error
    /// or a result, never a panic, and never a runaway allocation.
    #[test]
    fn fuzz_decoders(data in prop::collection::vec(any::<u8>(), 0..200), w in 0u8..40, n in 0usize..2000) {
        let _ = rle::RleDecoder::new(&data, w).and_then(|mut d| d.decode_into(&mut Vec::<u32>::new(), n));
        let _ = rle::RleDecoder::new(&data, w).and_then(|mut d| d.skip(n));
        let _ = rle::RleDecoder::new_length_prefixed(&data, w).and_then(|(mut d, _)| d.decode(&mut vec![0i16; n.min(300)]));
        let _ = dictionary::indices_decoder(&data).and_then(|mut d| d.decode(&mut vec![0u32; n.min(300)]));
        let _ = bit_pack::unpack_msb(&data, w.into(), &mut vec![0u32; n.min(300)]);
        let _ = plain::ByteArrayDecoder::new(&data).decode(&mut Vec::<i32>::new(), &mut Vec::new(), n);
        let _ = plain::PlainDecoder::<[u32; 3]>::new(&data).decode_into(&mut Vec::new(), n);
        let _ = plain::BooleanDecoder::new(&data).decode(&mut vec![false; n.min(300)]);
        let _ = plain::FixedLenDecoder::new(&data, w.into()).and_then(|mut d| d.decode(&mut Vec::new(), n));
        let _ = dbp::DeltaBitPackDecoder::<i32>::new(&data).and_then(|mut d| d.decode(&mut vec![0; n.min(300)]));
        let _ = dbp::DeltaBitPackDecoder::<i64>::new(&data).and_then(|mut d| d.skip(n));
        let _ = dbp::DeltaBitPackDecoder::<i64>::new(&data).and_then(|d| d.skip_to_end());
        let _ = dba::DeltaLengthDecoder::new(&data).and_then(|mut d| d.decode(&mut Vec::<i64>::new(), &mut Vec::new(), n));
        let _ = dba::DeltaByteArrayDecoder::new(&data).and_then(|mut d| d.decode(&mut Vec::<i32>::new(), &mut Vec::new(), n));
        let _ = dba::DeltaByteArrayDecoder::new(&data).and_then(|mut d| d.decode_fixed(&mut Vec::new(), w.into(), n));
        let _ = bss::ByteStreamSplitDecoder::new(&data, w.into()).and_then(|mut d| d.decode_bytes(&mut Vec::new(), n));
        let _ = bss::ByteStreamSplitDecoder::new(&data, 8).and_then(|mut d| d.decode(&mut vec![0f64; n.min(300)]));
        let _ = gvi::GroupVarIntDecoder32::new(&data).decode(&mut vec![0; n.min(300)]);
        let _ = gvi::GroupVarIntDecoder64::new(&data).decode(&mut vec![0; n.min(300)]);
        let _ = alp::AlpDecoder::<f64>::new(&data).and_then(|mut d| d.decode_into(&mut Vec::new(), n.min(d.remaining())));
        let _ = alp::AlpDecoder::<f32>::new(&data).and_then(|mut d| d.skip(n));
        let idx: Vec<u32> = data.iter().map(|&b| u32::from(b)).collect();
        let _ = dictionary::gather(&[1i32, 2, 3], &idx, &mut Vec::new());
        let _ = dictionary::gather_byte_array(&[0i32, 1, 3], b"abc", &idx, &mut Vec::<i64>::new(), &mut Vec::new());
        let mut starts = Vec::new();
        let _ = plain::ByteArrayDecoder::new(&data).index(n, &mut starts);
        let _ = dictionary::gather_plain_byte_array(&data, &starts, &idx, &mut Vec::<i32>::new(), &mut Vec::new());
        // Starts that do not leave room for a prefix, or run past the bytes.
        let _ = dictionary::gather_plain_byte_array(b"abcdefgh", &[4, 6, 30], &idx, &mut Vec::<i32>::new(), &mut Vec::new());
    }

    /// Valid DELTA headers followed by random block bytes.
    #[test]
    fn fuzz_delta_blocks(body in prop::collection::vec(any::<u8>(), 0..300), count in 0u64..5000, mb in prop_oneof![Just(1u8), Just(2), Just(4)]) {
        let mut data = vec![0x80, 0x01, mb];
        pq_encoding::varint::write_uleb128(&mut data, count);
        data.push(0);
        data.extend_from_slice(&body);
        let _ = dbp::DeltaBitPackDecoder::<i32>::new(&data).and_then(|mut d| d.skip(count as usize));
        let _ = dba::DeltaByteArrayDecoder::new(&data).and_then(|mut d| d.decode(&mut Vec::<i32>::new(), &mut Vec::new(), count as usize));
        let mut alp_page = vec![0, 0, 3];
        alp_page.extend_from_slice(&(count as i32).to_le_bytes());
        alp_page.extend_from_slice(&body);
        let _ = alp::AlpDecoder::<f64>::new(&alp_page).and_then(|mut d| d.decode_into(&mut Vec::new(), d.remaining()));
    }
}

proptest! {
    #![proptest_config(cfg())]

    /// The byte-array gather against a naive one: small dictionaries of
    /// short entries (fixed slots), tiny ones (copied padded to the stack),
    /// large ones (gathered in place, their last
    /// entries near the end of the buffer), values longer than the fixed
    /// copy, and output that already holds values; and the same entries
    /// gathered from their PLAIN page through its index.
    #[test]
    fn gather_byte_array_matches_naive(
        entries in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..90), 1..80),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..300),
        prefix in prop::collection::vec(any::<u8>(), 0..20),
        big in any::<bool>(),
        short in 0..6usize,
        uniform in prop::option::of(prop::sample::select(vec![0usize, 1, 2, 3, 8, 9, 12, 16, 17, 32, 33, 40])),
    ) {
        let mut entries = entries;
        // Entries of at most 8, 16 or 32 bytes: up to 64 of them take the
        // fixed-slot path (with copies of 8, 16 or 32 bytes), more the
        // general one. The first is the longest, on either side of each
        // copy width.
        if let Some(m) = [None, Some(9), Some(10), Some(17), Some(18), Some(33)][short] {
            for e in &mut entries {
                e.truncate(e.len() % m);
            }
            entries[0].resize(m - 1, 0xCD);
        }
        // Entries all of one length, on either side of each copy width (up
        // to 32 is the fixed-slot path's arithmetic offsets and narrow
        // copies; 1 is its byte-by-byte gather).
        if let Some(width) = uniform {
            for e in &mut entries {
                e.resize(width, 0xAB);
            }
        }
        // Lengthen the dictionary past the stack copy's size when `big`.
        if big {
            entries.push(vec![7u8; 1500]);
        }
        let mut doff = vec![0i64];
        let mut dval = Vec::new();
        for e in &entries {
            dval.extend_from_slice(e);
            doff.push(dval.len() as i64);
        }
        let idx: Vec<u32> = picks.iter().map(|p| p.index(entries.len()) as u32).collect();
        let mut off = vec![0i32, prefix.len() as i32];
        let mut val = prefix.clone();
        dictionary::gather_byte_array(&doff, &dval, &idx, &mut off, &mut val).unwrap();
        let mut want_val = prefix.clone();
        let mut want_off = vec![0i32, prefix.len() as i32];
        for &i in &idx {
            want_val.extend_from_slice(&entries[i as usize]);
            want_off.push(want_val.len() as i32);
        }
        prop_assert_eq!(&val, &want_val);
        prop_assert_eq!(&off, &want_off);

        let mut page = Vec::new();
        plain::encode_byte_array(entries.iter().map(|e| e.as_slice()), &mut page);
        let mut starts = Vec::new();
        let indexed = plain::ByteArrayDecoder::new(&page).index(entries.len(), &mut starts).unwrap();
        prop_assert_eq!(indexed, entries.len());
        let mut off = vec![0i32, prefix.len() as i32];
        let mut val = prefix.clone();
        dictionary::gather_plain_byte_array(&page, &starts, &idx, &mut off, &mut val).unwrap();
        prop_assert_eq!(val, want_val);
        prop_assert_eq!(off, want_off);
    }
}

proptest! {
    #![proptest_config(cfg())]

    /// DELTA_BYTE_ARRAY with long values and long shared prefixes (the
    /// fixed-size copies of short prefixes and suffixes, and the exact
    /// copies of longer ones), decoded in chunks.
    #[test]
    fn delta_byte_arrays_long_prefixes(
        steps in prop::collection::vec((0usize..80, prop::collection::vec(any::<u8>(), 0..70)), 0..120),
        chunk in 1usize..9,
    ) {
        let mut arrays: Vec<Vec<u8>> = Vec::new();
        for (keep, tail) in steps {
            let mut v = arrays.last().cloned().unwrap_or_default();
            v.truncate(keep);
            v.extend_from_slice(&tail);
            arrays.push(v);
        }
        let mut buf = Vec::new();
        dba::encode_delta_byte_array(arrays.iter().map(|v| v.as_slice()), &mut buf).unwrap();
        let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
        let mut dec = dba::DeltaByteArrayDecoder::new(&buf).unwrap();
        while dec.decode(&mut o, &mut v, chunk).unwrap() == chunk {}
        prop_assert_eq!(&v, &arrays.concat());
        let want: Vec<i64> = std::iter::once(0)
            .chain(arrays.iter().scan(0i64, |end, a| { *end += a.len() as i64; Some(*end) }))
            .collect();
        prop_assert_eq!(o, want);
    }
}
