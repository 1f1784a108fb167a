//! `URLSIFT_ISA` really selects the ISA: this test binary runs itself once per
//! value, and the child checks what `Extractor::new()` picked.
//! Also the pure name parser (`Extractor::choose`) and `Isa` names.

use std::process::Command;

use urlsift_core::{Extractor, Isa, isa_report};

/// The environment variable that forces an ISA.
const ISA_ENV: &str = "URLSIFT_ISA";

/// Set in the child to the ISA name it must see.
const EXPECT_ENV: &str = "URLSIFT_TEST_EXPECT_ISA";

/// The fastest ISA this CPU can run: what `auto` picks.
fn best() -> Isa {
    [Isa::Avx512, Isa::Avx2, Isa::Sse2, Isa::Neon]
        .into_iter()
        .find(|isa| isa.is_available())
        .unwrap_or(Isa::Scalar)
}

/// The child side: with `URLSIFT_TEST_EXPECT_ISA` set, `auto()` must pick it.
/// Run normally, it only checks that `auto()` agrees with `from_env()`.
#[test]
fn child_reports_selected_isa() {
    let auto = Extractor::new();
    match std::env::var(EXPECT_ENV) {
        Ok(expect) => {
            assert_eq!(auto.isa().name(), expect);
            println!("selected={}", auto.isa());
        }
        Err(_) => {
            let want = Extractor::choose(None).map_or(best(), |c| c.isa());
            assert_eq!(auto.isa(), want);
        }
    }
}

/// Run `child_reports_selected_isa` in a fresh process with `URLSIFT_ISA=value`.
fn run_child(value: &str, expect: Isa) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([
            "--exact",
            "child_reports_selected_isa",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ISA_ENV, value)
        .env(EXPECT_ENV, expect.name())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() && !stdout.contains("running 1 test") {
        // The binary cannot run itself (for example a cross build under
        // qemu-user without binfmt): say so loudly rather than fail on the host.
        eprintln!(
            "SKIPPED: cannot re-execute the test binary for URLSIFT_ISA={value} ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    assert!(
        out.status.success() && stdout.contains(&format!("selected={}", expect.name())),
        "URLSIFT_ISA={value}: expected {expect}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn env_var_selects_each_available_isa() {
    for isa in Isa::ALL.into_iter().filter(|i| i.is_available()) {
        run_child(isa.name(), isa);
        run_child(&isa.name().to_uppercase(), isa);
    }
    run_child("auto", best());
}

#[test]
fn env_var_bad_value_falls_back_to_best() {
    run_child("no-such-isa", best());
    if let Some(missing) = Isa::ALL.into_iter().find(|i| !i.is_available()) {
        run_child(missing.name(), best());
    }
}

#[test]
fn from_name_parses_and_reports_errors() {
    assert_eq!(Extractor::choose(Some("auto")).unwrap().isa(), best());
    assert_eq!(Extractor::choose(Some("")).unwrap().isa(), best());
    assert_eq!(
        Extractor::choose(Some(" Scalar ")).unwrap().isa(),
        Isa::Scalar
    );
    let err = Extractor::choose(Some("mmx")).unwrap_err().to_string();
    assert!(
        err.contains("unknown ISA") && err.contains("avx512"),
        "{err}"
    );
    for isa in Isa::ALL {
        match Extractor::choose(Some(isa.name())) {
            Ok(c) => assert_eq!(c.isa(), isa),
            Err(e) => {
                assert!(!isa.is_available());
                let e = e.to_string();
                assert!(e.contains("not available"), "{e}");
            }
        }
    }
}

#[test]
fn isa_names_round_trip() {
    for isa in Isa::ALL {
        assert_eq!(isa.name().parse::<Isa>().ok(), Some(isa));
        assert_eq!(isa.to_string(), isa.name());
    }
    assert_eq!("AVX2".parse::<Isa>().ok(), Some(Isa::Avx2));
    assert_eq!("avx-2".parse::<Isa>().ok(), None);
    assert!(best().is_available());
    let report = isa_report();
    assert!(report.contains("compiled: scalar"), "{report}");
    assert!(report.contains(Extractor::new().isa().name()), "{report}");
}
