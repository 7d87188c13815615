// One tunable's editor, picked by its registry type: a combo box for a
// choice, a switch for on/off, a spin box for an integer within its range,
// a text field for a size ("64K", "1M"). A number with a finite range also
// gets a slider over the registry's range (linear for a short integer
// range, else in powers of two), applied when it is let go, so the effect
// on a running workload shows at once; the box beside it takes an exact
// value. A value is checked against the
// registry's range before anything is set; a refusal is shown under the
// editor and nothing changes. The refusal stays while it applies: it goes
// once a valid value is applied or chosen again here, or once the tunable
// changes (set by anyone: another page, a run, the engine). `applyValue` does the setting and returns ""
// or the message (LiveSession.setTunable).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: ed
    property string address          // "read_policy", "rd1/write_mostly"
    property string type: "integer"  // integer | bytes | boolean | choice
    property real minimum: 0
    property real maximum: 0
    property var choices: []
    property string unit
    property string value            // current value text
    property string rangeText
    property var applyValue: function(address, text) { return "" }
    property string error
    property string refusedAt        // `value` when the refusal was made
    // The tunable changed since the refusal (a model refresh giving the
    // same value again is no change): the refusal no longer applies.
    onValueChanged: if (error.length > 0 && value !== refusedAt) error = ""
    readonly property bool fitsSpinBox: type === "integer" && minimum >= -2147483647 && maximum <= 2147483647
    readonly property bool numeric: (type === "integer" || type === "bytes") && maximum > minimum
    // The slider's positions: every integer of a short range, else the
    // range's ends and the powers of two between them.
    readonly property var sliderStops: {
        if (!numeric) return []
        if (type === "integer" && maximum - minimum <= 256) return []  // linear: from/to are the range
        const out = [minimum]
        for (let p = 1; p < maximum; p *= 2) if (p > minimum) out.push(p)
        out.push(maximum)
        return out
    }
    // Slider position of a value (the nearest stop at or below it).
    function stopIndex(v) {
        if (sliderStops.length === 0) return v
        let i = 0
        while (i + 1 < sliderStops.length && sliderStops[i + 1] <= v) ++i
        return i
    }
    function stopValue(pos) {
        return sliderStops.length === 0 ? Math.round(pos) : sliderStops[Math.max(0, Math.min(sliderStops.length - 1, Math.round(pos)))]
    }
    // "1M", "64K", "512" for sizes; the number for counts.
    function valueText(v) {
        if (type !== "bytes" || v === 0) return String(v)
        const units = [[1 << 30, "G"], [1 << 20, "M"], [1 << 10, "K"]]
        for (const [n, u] of units) if (v % n === 0) return String(v / n) + u
        return String(v)
    }
    spacing: 2
    // The value box and the unit take the same width in every editor, so
    // the sliders, boxes and units of the Tune page's cards stand in
    // columns (a spin box was 10 px narrower than a size field, "bytes"
    // narrower than "requests": every slider started elsewhere).
    readonly property int boxWidth: 130
    TextMetrics { id: unitMetrics; text: "requests" }

    // Checks and sets `text`; keeps the message when refused.
    function submit(text) {
        const msg = applyValue(address, text)
        refuse(msg)
        return msg
    }
    // Shows `msg` ("" clears), against the value it was made at; also for
    // a refusal that comes later (the engine's, LiveSession.tunableFailed).
    function refuse(msg) {
        refusedAt = value
        error = msg
    }

    RowLayout {
        spacing: 6
        Slider {
            id: slider
            objectName: "slider_" + ed.address
            visible: ed.numeric
            implicitWidth: 180
            from: ed.sliderStops.length > 0 ? 0 : ed.minimum
            to: ed.sliderStops.length > 0 ? ed.sliderStops.length - 1 : ed.maximum
            stepSize: 1
            snapMode: Slider.SnapAlways
            value: ed.stopIndex(Number(ed.value) || 0)
            readonly property real chosen: ed.stopValue(value)
            // Applied once let go (or at each arrow key): one change, one
            // mark on the dashboard's time axis, not one per pixel dragged.
            function apply() {
                // The current value chosen again: valid, nothing to set,
                // and a refusal of another value no longer applies.
                if (String(chosen) === ed.value) { ed.error = ""; return }
                ed.submit(String(chosen))
                value = Qt.binding(() => ed.stopIndex(Number(ed.value) || 0))
            }
            onPressedChanged: if (!pressed) apply()
            onMoved: if (!pressed) apply()
            ToolTip.visible: pressed || hovered
            ToolTip.text: pressed ? ed.valueText(chosen) + (ed.unit.length > 0 ? " " + ed.unit : "")
                                  : qsTr("%1 (drag, or arrow keys; applies at once)").arg(ed.rangeText)
            ToolTip.delay: pressed ? 0 : 600
        }
        ComboBox {
            id: combo
            objectName: "editor_" + ed.address
            visible: ed.type === "choice"
            model: ed.choices
            currentIndex: Math.max(0, ed.choices.indexOf(ed.value))
            implicitContentWidthPolicy: ComboBox.WidestText
            onActivated: index => ed.submit(ed.choices[index])
            ToolTip.visible: hovered && ed.rangeText.length > 0
            ToolTip.text: ed.rangeText
            ToolTip.delay: 600
        }
        Switch {
            objectName: "editor_" + ed.address
            visible: ed.type === "boolean"
            checked: ed.value === "on"
            text: checked ? qsTr("on") : qsTr("off")
            onToggled: ed.submit(checked ? "on" : "off")
        }
        Spin {
            id: spin
            objectName: "editor_" + ed.address
            visible: ed.fitsSpinBox
            editable: true
            // The box itself does not clamp (a SpinBox would silently turn
            // 999 into the maximum): any number may be typed or stepped to,
            // and the registry's range check says what is wrong with it.
            from: -2147483647
            to: 2147483647
            value: parseInt(ed.value) || 0
            Layout.preferredWidth: ed.boxWidth
            validator: RegularExpressionValidator { regularExpression: /-?[0-9]{0,10}/ }
            textFromValue: (v, locale) => String(v)
            valueFromText: (t, locale) => parseInt(t) || 0
            onValueModified: {
                if (ed.submit(String(value)).length > 0) value = Qt.binding(() => parseInt(ed.value) || 0)
            }
            ToolTip.visible: hovered
            ToolTip.text: qsTr("%1 (Enter applies)").arg(ed.rangeText)
            ToolTip.delay: 600
        }
        Field {
            id: field
            objectName: "editor_" + ed.address
            visible: ed.type === "bytes" || (ed.type === "integer" && !ed.fitsSpinBox)
            text: ed.value
            selectByMouse: true
            Layout.preferredWidth: ed.boxWidth
            // Figures placed as the spin boxes above and below it place theirs.
            horizontalAlignment: spin.contentItem.horizontalAlignment
            onAccepted: ed.submit(text)
            ToolTip.visible: hovered
            ToolTip.text: qsTr("%1 (K, M, G suffixes; Enter applies)").arg(ed.rangeText)
            ToolTip.delay: 600
        }
        Label {
            objectName: "unit_" + ed.address
            visible: ed.unit.length > 0 && ed.type !== "choice" && ed.type !== "boolean"
            text: ed.unit
            opacity: 0.7
            Layout.minimumWidth: Math.ceil(unitMetrics.advanceWidth)
        }
    }
    Label {
        objectName: "error_" + ed.address
        visible: ed.error.length > 0
        text: ed.error
        color: Theme.negative
        wrapMode: Text.Wrap
        Layout.maximumWidth: 420
    }
}
