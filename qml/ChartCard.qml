// A live time chart in a card: the points stay in C++ (TimeChart draws a
// TelemetryModel's series); this only styles it from the palette.
import QtQuick
import QtQuick.Controls
import RaidScope

Card {
    id: cc
    property alias model: chart.model
    property alias metric: chart.metric
    property alias unit: chart.unit
    property alias fixedMax: chart.fixedMax
    property alias window: chart.window
    // What the legend's figures are (newest, mean or peak of the window),
    // said next to the title so they can be reconciled with the tiles.
    property alias legendStat: chart.legendStat
    subtitle: chart.legendNote
    property alias chart: chart
    property string help
    implicitHeight: 230
    SystemPalette { id: cpal; colorGroup: SystemPalette.Active }
    ToolTip.visible: help.length > 0 && chartHover.hovered
    ToolTip.text: help
    ToolTip.delay: 800
    HoverHandler { id: chartHover }
    TimeChart {
        id: chart
        anchors.fill: parent
        textColor: cpal.windowText
        // Opaque (the text colour faded into the card's): the chart fills
        // its grid lines directly instead of blending them.
        gridColor: Qt.tint(cpal.base, Qt.rgba(cpal.windowText.r, cpal.windowText.g, cpal.windowText.b, 0.18))
        markColor: Theme.markColor
        backgroundColor: cc.color
        colors: Theme.seriesColors
    }
}
