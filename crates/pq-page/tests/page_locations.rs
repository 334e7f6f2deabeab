//! A page reader given its chunk's page locations (the offset index) passes
//! over the pages of rows it skips without asking for a byte of them, asks
//! for a page as exactly its bytes, and gives the pages and rows a reader
//! that walks every header gives; locations that do not fit the chunk are
//! ignored, and locations that misplace rows fail at the first page read,
//! never shifting rows.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// A selection of one run of rows is an array of one range here.
#![allow(clippy::single_range_in_vec_init)]

mod common;

use std::ops::Range;

use bytes::Bytes;
use pq_format::{Limits, PageLocation, SchemaDescriptor, ThriftDecode};
use pq_page::{ChunkContext, Page, PageOptions, PageReader, PageStep, column_chunk_range};

/// One flat column chunk of a fixture with an offset index.
struct Chunk {
    ctx: ChunkContext,
    range: Range<u64>,
    locations: Vec<PageLocation>,
}

fn chunks(file: &Bytes) -> Vec<Chunk> {
    let limits = Limits::default();
    let meta = pq_format::read_metadata_from_bytes(file, &limits).unwrap();
    let schema = SchemaDescriptor::new(&meta.schema, &limits).unwrap();
    let mut out = Vec::new();
    for rg in &meta.row_groups {
        for (i, chunk) in rg.columns.iter().enumerate() {
            let cmd = chunk.meta_data.as_ref().unwrap();
            let column = schema.column(i).unwrap();
            let (Some(offset), Some(len)) = (chunk.offset_index_offset, chunk.offset_index_length)
            else {
                continue;
            };
            if column.max_rep_level > 0 {
                continue;
            }
            let (offset, len) = (offset as usize, len as usize);
            let (oi, _) =
                pq_format::OffsetIndex::decode_prefix(&file[offset..offset + len], &limits)
                    .unwrap();
            let range =
                column_chunk_range(cmd, file.len() as u64, meta.created_by.as_deref()).unwrap();
            out.push(Chunk {
                ctx: ChunkContext {
                    codec: pq_compress::Codec::from_thrift(cmd.codec.0).unwrap(),
                    num_values: cmd.num_values as u64,
                    max_def_level: column.max_def_level,
                    max_rep_level: 0,
                    file_offset: range.start,
                    column: column.path_string(),
                },
                range,
                locations: oi.page_locations.to_vec(),
            });
        }
    }
    out
}

/// What a read that skips `skip` rows then reads the rest gives: each data
/// page's first row and values (or the error), the rows passed over, and
/// the ranges it asked for, each given exactly.
fn read(
    file: &Bytes,
    c: &Chunk,
    locations: Option<&[PageLocation]>,
    skip: u64,
) -> (Vec<String>, u64, Vec<Range<u64>>) {
    let mut reader = PageReader::streaming(
        c.range.end - c.range.start,
        c.ctx.clone(),
        &PageOptions::default().with_min_read(64),
    );
    if let Some(l) = locations {
        reader = reader.with_page_locations(l);
    }
    reader.skip_rows(skip);
    let (mut pages, mut asked) = (Vec::new(), Vec::new());
    let mut passed = None;
    loop {
        match reader.poll_page() {
            Ok(PageStep::Needs(r)) => {
                asked.push(r.clone());
                assert!(asked.len() < 10_000, "no progress");
                reader.push(r.start, file.slice(r.start as usize..r.end as usize));
            }
            Ok(PageStep::Page(Page::Data(p))) => {
                // Rows passed over are counted once the first page is read.
                let passed = *passed.get_or_insert_with(|| reader.take_skipped());
                pages.push(format!("{} values after {passed} passed", p.num_values));
            }
            Ok(PageStep::Page(Page::Dictionary(_))) => pages.push("dictionary".into()),
            Ok(PageStep::End) => break,
            Err(e) => {
                pages.push(format!("error: {e}"));
                break;
            }
        }
    }
    let passed = passed.unwrap_or_else(|| reader.take_skipped());
    (pages, passed, asked)
}

/// The chunk's pages' first rows, and the skips to try: ending on a page
/// boundary, inside a page, and at the end.
fn skips(c: &Chunk) -> (Vec<u64>, Vec<u64>) {
    let firsts: Vec<u64> = c
        .locations
        .iter()
        .map(|l| l.first_row_index as u64)
        .collect();
    let mut skips: Vec<u64> = firsts.iter().copied().chain([c.ctx.num_values]).collect();
    skips.extend(firsts.iter().skip(1).map(|f| f - 1));
    (firsts, skips)
}

/// A page reader of the chunk given `locations`.
fn placed(c: &Chunk, locations: &[PageLocation]) -> PageReader {
    PageReader::streaming(
        c.range.end - c.range.start,
        c.ctx.clone(),
        &PageOptions::default(),
    )
    .with_page_locations(locations)
}

fn fixtures() -> Vec<(String, Bytes)> {
    [
        "all_types_plain_v1.parquet",
        "all_types_dict_snappy_v1.parquet",
        "all_types_dict_zstd_v2.parquet",
    ]
    .iter()
    .map(|f| {
        let path = common::fixtures_dir().join(f);
        (f.to_string(), Bytes::from(std::fs::read(path).unwrap()))
    })
    .collect()
}

#[test]
fn skipped_pages_are_neither_read_nor_asked_for() {
    let mut checked = 0;
    for (name, file) in fixtures() {
        for c in chunks(&file) {
            let (firsts, skips) = skips(&c);
            for skip in skips {
                let at = format!("{name} {} skipping {skip}", c.ctx.column);
                let (walked, walked_passed, _) = read(&file, &c, None, skip);
                let (located, passed, asked) = read(&file, &c, Some(&c.locations), skip);
                assert_eq!(located, walked, "{at}");
                assert_eq!(passed, walked_passed, "{at}");
                // The pages passed over: none of their bytes asked for.
                let passed_pages = firsts.iter().filter(|&&f| f < skip).count();
                let whole: Vec<Range<u64>> = c
                    .locations
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| firsts.get(k + 1).copied().unwrap_or(c.ctx.num_values) <= skip)
                    .map(|(_, l)| {
                        l.offset as u64..(l.offset + l.compressed_page_size as i64) as u64
                    })
                    .collect();
                assert!(whole.len() <= passed_pages, "{at}");
                for r in &asked {
                    assert!(
                        !whole.iter().any(|w| r.start < w.end && w.start < r.end),
                        "{at}: asked for {r:?}, of a page passed over"
                    );
                }
                // The bytes before the first page (the dictionary page) are
                // asked for once, whole, though far more than the 64-byte
                // guess: not a header probe, then the page again.
                let first_page = c.locations[0].offset as u64;
                let before: Vec<&Range<u64>> =
                    asked.iter().filter(|r| r.start < first_page).collect();
                assert!(before.len() <= 1, "{at}: {before:?}");
                if let Some(r) = before.first() {
                    assert_eq!(**r, c.range.start..first_page, "{at}");
                }
                // A data page is asked for as exactly its bytes.
                for r in asked.iter().filter(|r| {
                    r.start >= firsts.first().map_or(0, |_| c.locations[0].offset as u64)
                }) {
                    assert!(
                        c.locations.iter().any(|l| l.offset as u64 == r.start
                            && l.compressed_page_size as u64 == r.end - r.start),
                        "{at}: {r:?} is not a page"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn ranges_for_rows_hold_every_request_of_a_read_and_no_page_it_passes_over() {
    let mut checked = 0;
    for (name, file) in fixtures() {
        for c in chunks(&file) {
            let placed = placed(&c, &c.locations);
            let (firsts, skips) = skips(&c);
            for skip in skips {
                let at = format!("{name} {} skipping {skip}", c.ctx.column);
                let (_, _, asked) = read(&file, &c, Some(&c.locations), skip);
                let runs = placed
                    .ranges_for_rows(&[skip..c.ctx.num_values])
                    .expect("placed pages");
                for r in &asked {
                    assert!(
                        runs.iter()
                            .any(|run| run.start <= r.start && r.end <= run.end),
                        "{at}: asked for {r:?}, outside {runs:?}"
                    );
                }
                // The pages wholly before `skip` are in no run.
                for (k, l) in c.locations.iter().enumerate() {
                    let end = firsts.get(k + 1).copied().unwrap_or(c.ctx.num_values);
                    let page = l.offset as u64..(l.offset + l.compressed_page_size as i64) as u64;
                    let in_a_run = runs
                        .iter()
                        .any(|r| r.start < page.end && page.start < r.end);
                    assert_eq!(in_a_run, end > skip, "{at}: page {k} {page:?} in {runs:?}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn locations_that_do_not_fit_are_ignored() {
    let (_, file) = fixtures().remove(0);
    let c = chunks(&file).remove(3);
    assert!(c.locations.len() > 2);
    let walked = read(&file, &c, None, 500);
    type Damage = fn(&mut Vec<PageLocation>);
    let damages: [(&str, Damage); 5] = [
        ("a first page past row 0", |l| l[0].first_row_index = 1),
        ("rows that go back", |l| {
            l[2].first_row_index = l[1].first_row_index
        }),
        ("a page outside the chunk", |l| l[1].offset = 1 << 40),
        ("pages that overlap", |l| l[1].offset -= 1),
        ("a page of no bytes", |l| l[2].compressed_page_size = 0),
    ];
    for (what, damage) in damages {
        let mut l = c.locations.clone();
        damage(&mut l);
        assert_eq!(read(&file, &c, Some(&l), 500), walked, "{what}");
        // Nor do they give byte runs to fetch: the chunk is read from its
        // start.
        assert_eq!(placed(&c, &l).ranges_for_rows(&[500..600]), None, "{what}");
    }
}

#[test]
fn locations_that_misplace_rows_fail_at_the_page_read() {
    let (_, file) = fixtures().remove(0);
    let c = chunks(&file).remove(3);
    let firsts: Vec<u64> = c
        .locations
        .iter()
        .map(|l| l.first_row_index as u64)
        .collect();
    // Page 2 said to start 7 rows late: pages 1 and 2 misplace rows.
    let mut l = c.locations.clone();
    l[2].first_row_index += 7;
    for skip in [firsts[1], firsts[2] + 7] {
        let (pages, _, _) = read(&file, &c, Some(&l), skip);
        let last = pages.last().unwrap();
        assert!(last.contains("offset index"), "skipping {skip}: {pages:?}");
        assert!(
            !pages.iter().any(|p| p.contains("values after")),
            "{pages:?}"
        );
    }
    // A page said to be shorter than it is.
    let mut l = c.locations.clone();
    l[1].compressed_page_size -= 1;
    let (pages, _, _) = read(&file, &c, Some(&l), firsts[1]);
    assert!(pages.last().unwrap().contains("offset index"), "{pages:?}");
}
