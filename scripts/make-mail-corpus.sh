#!/bin/sh
# Build an mbox (mboxrd) corpus for the --mail benchmark by wrapping real text
# from this machine (/usr/share/doc/*/copyright and changelogs,
# /usr/share/common-licenses) into messages: quoted-printable text/plain,
# base64 text/plain, multipart/alternative with a base64 text/html part
# (`href` with `&amp;`), binary attachments, folded List-Unsubscribe headers
# and mboxrd `>From ` quoting. Deterministic for a given machine and size.
#
#   scripts/make-mail-corpus.sh -s 64M -o /tmp/mail.mbox
#
# Needs only perl (its core MIME::Base64, MIME::QuotedPrint, IO::Uncompress).
set -eu
size=64M
out=
while getopts s:o: opt; do
    case $opt in
    s) size=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-s SIZE] -o FILE" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || { echo "usage: $0 [-s SIZE] -o FILE" >&2; exit 2; }
case $size in
*[kK]) bytes=$(( ${size%?} * 1024 )) ;;
*[mM]) bytes=$(( ${size%?} * 1024 * 1024 )) ;;
*[gG]) bytes=$(( ${size%?} * 1024 * 1024 * 1024 )) ;;
*) bytes=$size ;;
esac
exec perl -e '
use strict; use warnings;
use MIME::Base64 qw(encode_base64);
use MIME::QuotedPrint qw(encode_qp);
use IO::Uncompress::Gunzip qw(gunzip $GunzipError);
my ($want, $out) = @ARGV;
my @files = sort(glob("/usr/share/doc/*/copyright"), glob("/usr/share/doc/*/changelog*.gz"),
                 glob("/usr/share/common-licenses/*"));
my @texts;
my $total = 0;
for my $f (@files) {
    next unless -f $f;
    my $t;
    if ($f =~ /\.gz$/) { gunzip($f => \$t) or next; } else { local $/; open my $h, "<", $f or next; $t = <$h>; }
    next unless defined $t && length $t > 200;
    $t = substr($t, 0, 24000);
    push @texts, $t; $total += length $t;
    last if $total > 32 * 1024 * 1024;
}
die "no source text found under /usr/share/doc\n" unless @texts;
open my $o, ">", $out or die "$out: $!\n";
binmode $o;
my ($n, $written, $seed) = (0, 0, 12345);
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed % $_[0]; }
while ($written < $want) {
    $n++;
    my $t = $texts[rnd(scalar @texts)];
    # A long URL per message, so quoted-printable breaks lines inside it.
    my $long = "https://lists.example.org/archives/project-$n/2024/thread-" . rnd(100000)
        . "/message.html?view=flat&sort=date&highlight=" . ("x" x rnd(40)) . "#msg$n";
    $t = "See $long for the thread.\n\n$t\nFrom the archive: http://archive.example.net/$n\n";
    my $kind = rnd(10);
    my $hdr = "From: sender$n\@example.org\nTo: list\@example.org\nSubject: message $n\n"
        . "Date: Mon, 1 Jan 2024 00:00:00 +0000\nMessage-ID: <$n.corpus\@example.org>\n"
        . "List-Unsubscribe: <https://lists.example.org/unsubscribe?list=dev&id=$n>,\n <mailto:leave\@example.org>\n"
        . "MIME-Version: 1.0\n";
    my $body;
    if ($kind < 4) {
        $body = "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n" . encode_qp($t);
    } elsif ($kind < 6) {
        $body = "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n" . encode_base64($t);
    } elsif ($kind < 9) {
        (my $h = $t) =~ s/&/&amp;/g; $h =~ s/</&lt;/g; $h =~ s/>/&gt;/g;
        $h =~ s{(https?://[^\s&;"]+(?:&amp;[^\s&;"]+)*)}{<a href="$1">$1</a>}g;
        $h = "<html><body><p>" . join("</p>\n<p>", split /\n\n/, $h) . "</p></body></html>\n";
        $body = "Content-Type: multipart/alternative; boundary=\"alt$n\"\n\n--alt$n\n"
            . "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n\n"
            . encode_qp($t) . "\n--alt$n\nContent-Type: text/html; charset=utf-8\n"
            . "Content-Transfer-Encoding: " . ($kind == 8 ? "base64\n\n" . encode_base64($h) : "quoted-printable\n\n" . encode_qp($h))
            . "\n--alt$n--\n";
    } else {
        my $bin = join("", map { chr(rnd(256)) } 1 .. 2048);
        $body = "Content-Type: multipart/mixed; boundary=\"mix$n\"\n\n--mix$n\n"
            . "Content-Type: text/plain; charset=iso-8859-1\n\n$t\n--mix$n\n"
            . "Content-Type: application/octet-stream; name=\"blob.bin\"\nContent-Transfer-Encoding: base64\n\n"
            . encode_base64($bin) . "\n--mix$n--\n";
    }
    (my $q = "$hdr$body") =~ s/^(>*From )/>$1/mg;   # mboxrd quoting
    my $msg = "From sender$n\@example.org Mon Jan  1 00:00:00 2024\n$q\n";
    print $o $msg;
    $written += length $msg;
}
close $o or die "$out: $!\n";
printf STDERR "%s: %d messages, %d bytes\n", $out, $n, $written;
' "$bytes" "$out"
