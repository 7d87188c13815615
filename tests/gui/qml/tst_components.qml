// Components with logic: the share bar's proportions, the result bars'
// scale, the figure formatting, and the tunable editor's checking (an
// out-of-range number typed into the spin box shows the refusal and sets
// nothing; a choice applies the value picked).
import QtQuick
import QtQuick.Controls
import QtTest
import RaidScope

Item {
    id: root
    width: 600
    height: 400

    ShareBar { id: bar; width: 400; shares: [75, 25] }
    // As narrow as the dashboard's six tiles get in a 1280 px window.
    StatTile { id: tile; x: 420; width: 160; label: "Latency p99"; value: "132.6 ms"; window: "last 50 ms" }
    StatTile { id: narrowTile; x: 420; y: 100; width: 100; label: "Read"; value: "1.50 GB/s" }
    ResultBars { id: bars; width: 400; before: 100; after: 250 }

    property var applied: []
    // Stands in for LiveSession.setTunable: the registry's rule for 1..64.
    function fakeApply(address, text) {
        const n = Number(text)
        if (!/^-?[0-9]+$/.test(text) || n < 1 || n > 64) return address + "=" + text + ": out of range (valid: 1..64 requests)"
        applied.push(address + "=" + text)
        return ""
    }
    TunableEditor {
        id: spinEditor
        y: 100
        address: "queue_limit"
        type: "integer"
        minimum: 1
        maximum: 64
        value: "8"
        unit: "requests"
        rangeText: "1..64 requests"
        applyValue: root.fakeApply
    }
    TunableEditor {
        id: choiceEditor
        y: 200
        address: "read_policy"
        type: "choice"
        choices: ["md-legacy", "md-rr", "btrfs-rr"]
        value: "md-legacy"
        applyValue: root.fakeApplyChoice
    }
    function fakeApplyChoice(address, text) { applied.push(address + "=" + text); return "" }
    TunableEditor {
        id: bytesEditor
        y: 300
        address: "rd1/io_opt"
        type: "bytes"
        minimum: 0
        maximum: 67108864
        value: "65536"
        unit: "bytes"
        rangeText: "0..67108864 bytes"
        applyValue: root.fakeApplyChoice
    }

    TestCase {
        name: "Components"
        when: windowShown

        function findByName(item, name) {
            if (item.objectName === name && item.visible) return item
            for (let i = 0; i < item.children.length; ++i) {
                const r = findByName(item.children[i], name)
                if (r) return r
            }
            return null
        }

        function test_shareBarProportions() {
            compare(bar.total, 100)
            compare(bar.partWidth(0), 300)
            compare(bar.partWidth(1), 100)
            compare(bar.partX(1), 300)
            bar.shares = [0, 0]
            compare(bar.partWidth(0), 0)
            bar.shares = [1, 3]  // any scale: proportions of the sum
            compare(bar.partWidth(1), 300)
        }

        // The tile says what window its figure covers, under the figure,
        // and neither the label nor the figure is clipped for it.
        function test_statTileStatesItsWindow() {
            const w = findByName(tile, "statWindow")
            verify(w, "the window is shown")
            compare(w.text, "last 50 ms")
            verify(!w.truncated)
            const v = findByName(tile, "statValue")
            verify(!v.truncated, "the figure fits")
            verify(w.y > v.y, "under the figure")
            for (let i = 0; i < v.parent.children.length; ++i) {
                const c = v.parent.children[i]
                if (c.text === "Latency p99") verify(!c.truncated, "the label is not elided")
            }
            verify(w.y + w.height <= tile.height, "inside the tile")
        }

        // Too narrow for the figure at its size: smaller, never cut.
        function test_statTileShrinksRatherThanElides() {
            const v = findByName(narrowTile, "statValue")
            verify(!v.truncated)
            verify(v.contentWidth <= v.width + 0.5, v.contentWidth + " > " + v.width)
            verify(v.fontInfo.pixelSize < 22, "shrunk to fit")
        }

        function test_resultBarsScale() {
            compare(bars.fraction(250), 1)
            compare(bars.fraction(100), 0.4)
            compare(bars.fraction(-5), 0)
        }

        function test_formatting() {
            compare(Theme.bandwidth(412e6), "412 MB/s")
            compare(Theme.bandwidth(1.5e9), "1.50 GB/s")
            compare(Theme.bandwidth(55.5e6), "55.5 MB/s")
            compare(Theme.count(12345), "12.3 k")
            compare(Theme.ms(0.25), "250 µs")
            compare(Theme.ms(4.2), "4.20 ms")
            compare(Theme.ms(0), "–")
            // Zero in the charts' unit, as the write tile sits next to them.
            compare(Theme.bandwidth(0), "0 MB/s")
            compare(Theme.bandwidth(2500), "3 kB/s")
            // The Arrays page's sizes, existing or typed, in one unit.
            compare(Theme.mebibytes(64 * 1048576), "64 MiB")
            compare(Theme.parseSize("64M"), 64 * 1048576)
            compare(Theme.parseSize("1G"), 1073741824)
            compare(Theme.parseSize("512k"), 524288)
            compare(Theme.parseSize("4096"), 4096)
            compare(Theme.parseSize("64MiB"), 64 * 1048576)
            verify(isNaN(Theme.parseSize("lots")))
            // Human sizes and times (a range read 67108864).
            compare(Theme.size(67108864), "64 MiB")
            compare(Theme.size(1536 * 1048576), "1.5 GiB")
            compare(Theme.size(512 * 1024), "512 KiB")
            compare(Theme.duration(45), "45 s")
            compare(Theme.duration(200), "3 min 20 s")
            compare(Theme.duration(3900), "1 h 05 min")
            compare(Theme.taskText({ kind: "rebuild", target: "m2.img", fraction: 0.42, speed: 120e6, secondsLeft: 35 }),
                    "m2.img · 42 % · 120 MB/s · 35 s left")
        }

        // A figure that is no longer live is greyed and says "stopped".
        function test_staleTileSaysStopped() {
            tile.stale = true
            compare(findByName(tile, "statWindow").text, "stopped")
            verify(findByName(tile, "statValue").opacity < 1)
            tile.stale = false
            compare(findByName(tile, "statWindow").text, "last 50 ms")
        }

        function test_spinBoxOutOfRangeShowsMessage() {
            root.applied = []
            const spin = findByName(spinEditor, "editor_queue_limit")
            verify(spin)
            spin.forceActiveFocus()
            spin.contentItem.selectAll()
            keyClick(Qt.Key_9); keyClick(Qt.Key_9); keyClick(Qt.Key_9)
            keyClick(Qt.Key_Return)
            const err = findByName(spinEditor, "error_queue_limit")
            verify(err, "the refusal is shown")
            verify(err.text.indexOf("1..64") >= 0, err.text)
            compare(root.applied.length, 0, "nothing was set")
            spin.contentItem.selectAll()
            keyClick(Qt.Key_3); keyClick(Qt.Key_2)
            keyClick(Qt.Key_Return)
            compare(root.applied, ["queue_limit=32"])
            compare(spinEditor.error, "")
        }

        // A refusal stays while it applies (the same value given again by a
        // model refresh) and goes once it does not: the tunable changed (by
        // anyone), or a valid value applied or chosen on the slider.
        function test_refusalGoesOnceItNoLongerApplies() {
            const spin = findByName(spinEditor, "editor_queue_limit")
            const lin = findByName(spinEditor, "slider_queue_limit")
            function refuse999() {
                spin.forceActiveFocus()
                spin.contentItem.selectAll()
                keyClick(Qt.Key_9); keyClick(Qt.Key_9); keyClick(Qt.Key_9)
                keyClick(Qt.Key_Return)
                verify(spinEditor.error.indexOf("999") >= 0, spinEditor.error)
            }
            refuse999()
            spinEditor.value = "8"  // a refresh: the same value
            verify(spinEditor.error.length > 0, "kept while it applies")
            verify(findByName(spinEditor, "error_queue_limit"))
            spinEditor.value = "16"  // set elsewhere
            compare(spinEditor.error, "")
            verify(!findByName(spinEditor, "error_queue_limit"), "the message is gone")
            refuse999()
            lin.forceActiveFocus()
            keyClick(Qt.Key_Right)  // a valid value through the other control
            compare(spinEditor.error, "")
            refuse999()
            // The slider let go on the current value: nothing to set, and
            // the refusal of 999 no longer stands.
            root.applied = []
            mouseClick(lin.handle, lin.handle.width / 2, lin.handle.height / 2)
            compare(root.applied, [])
            compare(spinEditor.error, "")
            spinEditor.value = "8"
        }

        // Sliders, boxes and units in columns: a count's spin box and a
        // size's text field end the same distance from the editor's right
        // edge, and so do their sliders.
        function test_editorsLineUp() {
            function fromRight(ed, name) {
                const i = findByName(ed, name)
                verify(i, name)
                return ed.width - i.mapToItem(ed, i.width, 0).x
            }
            compare(fromRight(spinEditor, "slider_queue_limit"), fromRight(bytesEditor, "slider_rd1/io_opt"))
            compare(fromRight(spinEditor, "editor_queue_limit"), fromRight(bytesEditor, "editor_rd1/io_opt"))
            compare(findByName(spinEditor, "editor_queue_limit").width, findByName(bytesEditor, "editor_rd1/io_opt").width)
            // Their figures aligned alike (the spin box centred them, the field left).
            compare(findByName(bytesEditor, "editor_rd1/io_opt").horizontalAlignment,
                    findByName(spinEditor, "editor_queue_limit").contentItem.horizontalAlignment)
        }

        function test_sliderSpansTheRegistryRange() {
            // A short integer range: every value, from the registry's ends.
            const lin = findByName(spinEditor, "slider_queue_limit")
            verify(lin)
            compare(lin.from, 1)
            compare(lin.to, 64)
            compare(lin.value, 8)
            // A size range: its ends and the powers of two between them.
            const log = findByName(bytesEditor, "slider_rd1/io_opt")
            verify(log)
            compare(bytesEditor.sliderStops[0], 0)
            compare(bytesEditor.sliderStops[bytesEditor.sliderStops.length - 1], 67108864)
            compare(bytesEditor.sliderStops.length, 28)  // 0, 2^0..2^25, 64 MiB
            compare(bytesEditor.stopValue(log.value), 65536)
            compare(bytesEditor.valueText(1048576), "1M")
        }

        function test_sliderAppliesOneValueAtATime() {
            root.applied = []
            const lin = findByName(spinEditor, "slider_queue_limit")
            lin.forceActiveFocus()
            keyClick(Qt.Key_Right)
            compare(root.applied, ["queue_limit=9"])
            const log = findByName(bytesEditor, "slider_rd1/io_opt")
            log.forceActiveFocus()
            keyClick(Qt.Key_Right)
            compare(root.applied, ["queue_limit=9", "rd1/io_opt=131072"])
            // Dragged past the end: the registry's maximum, not beyond.
            mousePress(log, log.width - 2, log.height / 2)
            mouseMove(log, log.width + 80, log.height / 2)
            mouseRelease(log, log.width + 80, log.height / 2)
            compare(root.applied[root.applied.length - 1], "rd1/io_opt=67108864")
        }

        function test_choiceAppliesPickedValue() {
            root.applied = []
            const combo = findByName(choiceEditor, "editor_read_policy")
            verify(combo)
            compare(combo.currentText, "md-legacy")
            combo.forceActiveFocus()
            keyClick(Qt.Key_Down)
            compare(root.applied, ["read_policy=md-rr"])
        }
    }
}
